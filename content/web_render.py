"""A web page from a layout spec: the look derived from a brief, and the HTML/CSS that shows it.

Everything here is pure and deterministic: the brief's adjectives give design
tokens (:mod:`content.brief`: theme, imagery, spacing, heading family, weight,
saturation, corner radius, hero treatment), its colour words the hue, and the
brief's hash decides what the brief leaves open; the same design, layout spec
and images give the same HTML bytes.  The
skills in :mod:`skills.design_to_web` put the results on the canvas.
"""

from __future__ import annotations

import colorsys
import hashlib
import html
import re
from typing import Literal

from pydantic import BaseModel, Field, model_validator

from content.brief import DesignTokens, HeadingFamily, PageCopy, Theme, read_brief
from content.page_style import SPACING, TOKENS

HeroMode = Literal["contained", "full-bleed"]


class TypePairing(BaseModel):
    """A heading and a body font, as CSS font stacks of fonts a machine has without the network."""

    name: str
    heading: str
    body: str


TYPE_PAIRINGS: tuple[TypePairing, ...] = (
    TypePairing(name="editorial serif + grotesque", heading='Georgia, "DejaVu Serif", serif',
                body='"Helvetica Neue", Arial, "Liberation Sans", "DejaVu Sans", sans-serif'),
    TypePairing(name="humanist sans + serif", heading='"Trebuchet MS", "DejaVu Sans", sans-serif',
                body='Georgia, "Liberation Serif", "DejaVu Serif", serif'),
    TypePairing(name="technical mono + sans", heading='"DejaVu Sans Mono", "Liberation Mono", monospace',
                body='"Helvetica Neue", Arial, "DejaVu Sans", sans-serif'),
    TypePairing(name="classic book serif", heading='Palatino, "Palatino Linotype", "URW Palladio L", serif',
                body='"Book Antiqua", Palatino, "DejaVu Serif", serif'),
)

_SANS = '"Helvetica Neue", Arial, "Liberation Sans", "DejaVu Sans", sans-serif'
PAIRINGS_BY_FAMILY: dict[HeadingFamily, TypePairing] = {
    "serif": TYPE_PAIRINGS[0],
    "sans": TypePairing(name="neo-grotesque sans", heading=_SANS, body=_SANS),
    "mono": TYPE_PAIRINGS[2],
    "rounded": TypePairing(name="rounded humanist sans", heading='"Trebuchet MS", "Comic Neue", "DejaVu Sans", '
                           "sans-serif", body=_SANS),
    "display": TypePairing(name="heavy display + grotesque", heading='Impact, "Arial Black", '
                           '"DejaVu Sans Condensed", "DejaVu Sans", sans-serif', body=_SANS),
}
"""The type pairing a brief's heading family asks for; a brief that names none gets one of TYPE_PAIRINGS."""


class Palette(BaseModel):
    """The page's colours as #rrggbb: a light paper, a dark ink, two accents and a muted text colour."""

    paper: str
    ink: str
    accent: str
    accent_2: str
    muted: str

    def colours(self) -> list[str]:
        """Every colour, accents first (what a generated image should favour)."""
        return [self.accent, self.accent_2, self.ink, self.paper, self.muted]


class Design(BaseModel):
    """The look and words of a page, derived from its brief."""

    brief: str
    title: str
    tagline: str
    palette: Palette
    fonts: TypePairing
    tokens: DesignTokens | None = Field(default=None, description="Read from the brief when absent.")
    page_copy: PageCopy | None = Field(default=None, description="Written from the brief when absent.")

    @model_validator(mode="after")
    def _read_the_brief_once(self) -> Design:
        # Pages recorded before tokens and copy existed get them from their brief, so they still render.
        if self.tokens is None or self.page_copy is None:
            reading = read_brief(self.brief)
            self.tokens = self.tokens or reading.tokens
            self.page_copy = self.page_copy or reading.page_copy
        return self

    @property
    def look(self) -> DesignTokens:
        """The design tokens (always set after validation)."""
        assert self.tokens is not None
        return self.tokens

    @property
    def words(self) -> PageCopy:
        """The page's copy (always set after validation)."""
        assert self.page_copy is not None
        return self.page_copy


class LayoutSpec(BaseModel):
    """How a page is laid out: its sections in order, the gallery grid, the hero and the theme."""

    sections: list[str] = Field(min_length=1)
    columns: int = Field(ge=1, le=6, description="Columns of the gallery grid.")
    hero: HeroMode = "contained"
    theme: Theme = "light"


class PageImage(BaseModel):
    """A gallery image as the page uses it: a path relative to the page, and its canvas node."""

    node_id: str
    path: str
    sha256: str
    alt: str


def digest(text: str) -> bytes:
    """The stable hash every derived choice is read from."""
    return hashlib.sha256(text.encode("utf-8")).digest()


def words(text: str) -> list[str]:
    """The lower-case words of a text."""
    return re.findall(r"[a-z0-9]+", text.lower())


def slug(text: str, limit: int = 40) -> str:
    """A file-name-safe, lower-case form of a text."""
    return "-".join(words(text))[:limit].strip("-") or "page"


def _hex(hue: float, lightness: float, saturation: float) -> str:
    r, g, b = colorsys.hls_to_rgb(hue % 1.0, lightness, saturation)
    return f"#{round(r * 255):02x}{round(g * 255):02x}{round(b * 255):02x}"


def _hue_of(colour: str) -> float:
    r, g, b = (int(colour[i:i + 2], 16) / 255 for i in (1, 3, 5))
    return colorsys.rgb_to_hls(r, g, b)[0]


def derive_design(brief: str, hint_colours: list[str] | None = None) -> Design:
    """Palette, type pairing, tokens and copy of a brief (a colour from a reference wins the hue)."""
    key = digest(brief)
    reading = read_brief(brief)
    tokens = reading.tokens
    hue = tokens.hue if tokens.hue is not None else key[0] / 255
    if hint_colours:
        hue = _hue_of(hint_colours[0])
    palette = make_palette(brief, tokens, hue)
    fonts = PAIRINGS_BY_FAMILY[tokens.heading] if tokens.heading else TYPE_PAIRINGS[key[3] % len(TYPE_PAIRINGS)]
    return Design(brief=brief, title=reading.name, tagline=reading.page_copy.tagline, palette=palette, fonts=fonts,
                  tokens=tokens, page_copy=reading.page_copy)


def make_palette(brief: str, tokens: DesignTokens, hue: float, saturation: float | None = None) -> Palette:
    """The five colours of a page around ``hue``: what the brief (its tokens, its hash) says of the rest."""
    key = digest(brief)
    if saturation is None:
        saturation = tokens.saturation if tokens.saturation is not None else 0.55 + (key[2] % 20) / 100
    spread = 0.08 + (key[1] % 40) / 100  # how far the second accent sits from the first
    dark = tokens.theme == "dark"
    return Palette(
        paper=_hex(hue, 0.97, 0.35 * saturation),
        ink=_hex(hue, 0.07 if dark else 0.12, 0.3 * saturation),
        accent=_hex(hue, 0.55 if dark else 0.42, saturation),
        accent_2=_hex(hue + spread, 0.6 if dark else 0.55, 0.9 * saturation),
        muted=_hex(hue, 0.62 if dark else 0.42, 0.15 * saturation),
    )


def image_palette(design: Design, theme: Theme) -> list[str]:
    """Four colours for a generated picture (sky top, sky bottom, ground, feature): greys for greyscale imagery."""
    if design.look.imagery == "greyscale":
        return ["#262626", "#5a5a5a", "#1a1a1a", "#bdbdbd"] if theme == "dark" else \
            ["#d6d6d6", "#f2f2f2", "#a3a3a3", "#4a4a4a"]
    p = design.palette
    return [p.ink, p.accent, p.ink, p.accent_2] if theme == "dark" else [p.accent, p.paper, p.accent_2, p.ink]


# ---------------------------------------------------------------- HTML


def render_html(design: Design, spec: LayoutSpec, images: list[PageImage], *, texts: dict[str, str] | None = None,
                tokens: dict[str, str] | None = None, hero_image: PageImage | None = None) -> str:
    """A complete page: embedded CSS, a nav bar, one ``<section id=...>`` per spec section, a footer.

    ``texts`` overrides the words of named elements (:func:`page_texts` lists them) and ``tokens`` the
    design tokens (:mod:`content.page_style`); without them the page is what the design and layout give.
    The hero's backdrop is ``hero_image``, or the first gallery picture when the hero has none of its own.
    """
    e = html.escape
    look = design.look
    words = page_texts(design, spec, images, texts)
    classes = (f"theme-{spec.theme} hero-{spec.hero} hero-text-{look.hero_text} imagery-{look.imagery} "
               f"spacing-{look.spacing}")
    backdrop = hero_image or (images[0] if images else None)
    body = "\n".join(_section(name, design, spec, images, words, backdrop) for name in spec.sections)
    links = "".join(f'<a href="#{e(_anchor(n))}">{e(_label(n))}</a>' for n in spec.sections if n != "hero")
    return f"""<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{e(design.title)}</title>
<style>
{_css(design, spec, page_tokens(design, spec, tokens))}
</style>
</head>
<body class="{classes}">
<header class="site-nav"><div class="wrap nav-row"><a class="brand" href="#top">{e(design.title)}</a><nav>{links}</nav></div></header>
<main id="top">
{body}
</main>
<footer class="site-footer"><div class="wrap">&copy; {e(design.title)}</div></footer>
</body>
</html>
"""


def page_texts(design: Design, spec: LayoutSpec, images: list[PageImage],
               overrides: dict[str, str] | None = None) -> dict[str, str]:
    """The words of every text element on the page, by element name, overrides applied.

    Names: ``headline``, ``tagline`` and ``button`` (the hero), ``SECTION.heading`` and ``SECTION.text`` for
    every other section, ``gallery.caption-N`` per gallery picture.  Only elements of sections the page has.
    """
    copy = design.words
    found: dict[str, str] = {}
    for name in spec.sections:
        if name == "hero":
            found.update(headline=design.title, tagline=copy.tagline, button=copy.cta)
        elif name == "gallery":
            found["gallery.heading"] = copy.gallery_heading
            found.update({f"gallery.caption-{n}": i.alt for n, i in enumerate(images, start=1)})
        elif name == "about":
            found.update({"about.heading": "About", "about.text": "\n\n".join(copy.about)})
        elif name == "contact":
            found.update({"contact.heading": "Contact",
                          "contact.text": copy.contact.replace("{email}", contact_email(design))})
        else:
            found[f"{name}.heading"] = _label(name)
            found[f"{name}.text"] = f"Ask {design.title} about {_label(name).lower()}; we will tell you what fits."
    return {k: (overrides or {}).get(k, v) for k, v in found.items()}


def contact_email(design: Design) -> str:
    """The page's contact address (shown as a link wherever the contact text mentions it)."""
    return f"hello@{slug(design.title, 24)}.example"


def _anchor(name: str) -> str:
    return slug(name, 60)


def _label(name: str) -> str:
    return name.replace("-", " ").replace("_", " ").strip().capitalize()


def _paragraphs(text: str) -> str:
    return "".join(f"<p>{html.escape(p.strip())}</p>" for p in re.split(r"\n\s*\n", text) if p.strip())


def _section(name: str, design: Design, spec: LayoutSpec, images: list[PageImage], words: dict[str, str],
             backdrop: PageImage | None) -> str:
    e = html.escape
    anchor = e(_anchor(name))
    if name == "hero":
        background = f" style=\"background-image: url('{e(backdrop.path)}')\"" if backdrop else ""
        text = (f'<div class="hero__text"><h1>{e(words["headline"])}</h1><p>{e(words["tagline"])}</p>'
                f'<a class="button" href="#contact">{e(words["button"])}</a></div>')
        if design.look.hero_text == "plain":  # the words on the page, the picture below them
            return (f'<section id="{anchor}" class="hero hero--{spec.hero}"><div class="wrap">{text}</div>'
                    f'<div class="hero__frame"{background}></div></section>')
        return (f'<section id="{anchor}" class="hero hero--{spec.hero}">'
                f'<div class="hero__frame"{background}>{text}</div></section>')
    heading = e(words[f"{name}.heading"])
    if name == "gallery":
        figures = "".join(
            f'<figure><img src="{e(i.path)}" alt="{e(words[f"gallery.caption-{n}"])}" loading="eager">'
            f'<figcaption>{e(words[f"gallery.caption-{n}"])}</figcaption></figure>'
            for n, i in enumerate(images, start=1))
        return (f'<section id="{anchor}" class="gallery"><div class="wrap"><h2>{heading}</h2>'
                f'<div class="grid">{figures}</div></div></section>')
    if name == "about":
        return (f'<section id="{anchor}" class="about"><div class="wrap split"><h2>{heading}</h2>'
                f'<div>{_paragraphs(words["about.text"])}</div></div></section>')
    if name == "contact":
        email = contact_email(design)
        before, found, after = words["contact.text"].partition(email)
        link = f'<a href="mailto:{e(email)}">{e(email)}</a>'
        line = f"{e(before)}{link}{e(after)}" if found else f"{e(before)} {link}"
        return (f'<section id="{anchor}" class="contact"><div class="wrap"><h2>{heading}</h2>'
                f'<p>{line}</p>'
                '<form class="contact-form" onsubmit="return false"><input type="text" placeholder="Your name">'
                '<input type="email" placeholder="Your email"><textarea rows="3" placeholder="Message"></textarea>'
                '<button class="button" type="submit">Send</button></form></div></section>')
    return (f'<section id="{anchor}" class="extra"><div class="wrap"><h2>{heading}</h2>'
            f"{_paragraphs(words[f'{name}.text'])}</div></section>")


def _css(design: Design, spec: LayoutSpec, tokens: dict[str, str]) -> str:
    """The page's CSS: the tokens as custom properties on ``:root``, every rule reading them through var()."""
    t = design.look
    full = spec.hero == "full-bleed"
    plain = t.hero_text == "plain"
    hero_frame = (
        "width: 100%; min-height: var(--hero-height); border-radius: 0; margin: 0;"
        if full else
        "max-width: var(--content-width); min-height: var(--hero-height); "
        f"margin: {32 if not plain else 0}px auto 0; border-radius: {t.radius + 6 if t.radius else 0}px;"
    )
    hero_text = (
        "padding: var(--section-padding) 0 calc(var(--section-padding) / 2); color: var(--text-colour); "
        "max-width: 760px;"
        if plain else
        f"width: 100%; padding: 40px {'max(32px, calc((100% - 1036px) / 2))' if full else '40px'}; color: #ffffff; "
        "background: linear-gradient(to top, rgba(0,0,0,0.72), rgba(0,0,0,0));"
    )
    rule = "4px solid var(--accent)" if t.weight >= 900 else "1px solid var(--muted)"
    greyscale = "  figure img, .hero__frame { filter: grayscale(1); }\n" if t.imagery == "greyscale" else ""
    root = ";\n".join(f"    --{name}: {value}" for name, value in tokens.items())
    return f"""  :root {{
{root};
    --cols: {spec.columns};
  }}
  * {{ box-sizing: border-box; }}
  html, body {{ margin: 0; padding: 0; }}
  body {{ background: var(--background); color: var(--text-colour); font-family: var(--body-font);
    font-size: var(--text-size); line-height: var(--line-height); }}
  h1, h2 {{ font-family: var(--heading-font); font-weight: var(--heading-weight); line-height: 1.1;
    margin: 0 0 var(--grid-gap); }}
  h1 {{ font-size: var(--headline-size); }} h2 {{ font-size: var(--heading-size); color: var(--accent); }}
  a {{ color: var(--accent); }}
  .wrap {{ max-width: var(--content-width); margin: 0 auto; padding: 0 32px; }}
  .site-nav {{ background: var(--background); border-bottom: {rule}; }}
  .nav-row {{ display: flex; align-items: center; justify-content: space-between; height: var(--nav-height); }}
  .brand {{ font-family: var(--heading-font); font-size: 22px; font-weight: var(--heading-weight);
    color: var(--text-colour); text-decoration: none; }}
  nav a {{ margin-left: 24px; text-decoration: none; color: var(--text-colour); }}
  .hero__frame {{ {hero_frame} position: relative; display: flex; align-items: flex-end; overflow: hidden;
    background-color: var(--accent); background-size: cover; background-position: center; }}
  .hero__text {{ {hero_text} }}
  .hero__text p {{ font-size: 21px; max-width: 720px; margin: 0 0 20px; }}
  .button {{ display: inline-block; padding: 12px 22px; border: 0; border-radius: var(--button-radius);
    background: var(--button-colour); color: var(--button-text-colour); font: inherit; font-weight: bold;
    text-decoration: none; }}
  section {{ padding: var(--section-padding) 0; }}
  section.hero {{ padding: {'0' if full else '0 32px'}; }}
  .grid {{ display: grid; grid-template-columns: repeat(var(--cols), 1fr); gap: var(--grid-gap); }}
  figure {{ margin: 0; background: var(--surface); border-radius: var(--radius); overflow: hidden; }}
  figure img {{ display: block; width: 100%; aspect-ratio: 4 / 3; object-fit: cover; }}
  figcaption {{ padding: 10px 14px; color: var(--muted); font-size: 14px; }}
{greyscale}  .theme-dark figcaption {{ color: var(--text-colour); }}
  .theme-dark h2 {{ color: var(--accent-2); }}
  .split {{ display: grid; grid-template-columns: 1fr 2fr; gap: 32px; }}
  .contact-form {{ display: grid; gap: 12px; max-width: 560px; }}
  .contact-form input, .contact-form textarea {{ padding: 12px; border: 1px solid var(--muted);
    border-radius: var(--radius); background: var(--surface); color: var(--text-colour); font: inherit; }}
  .site-footer {{ padding: 24px 0; border-top: 1px solid var(--muted); color: var(--muted); font-size: 14px; }}"""


def mix(a: str, b: str, amount: float = 0.12) -> str:
    """The colour ``amount`` of the way from ``a`` to ``b`` (both #rrggbb)."""
    pa = [int(a[i:i + 2], 16) for i in (1, 3, 5)]
    pb = [int(b[i:i + 2], 16) for i in (1, 3, 5)]
    return "#" + "".join(f"{round(x + (y - x) * amount):02x}" for x, y in zip(pa, pb, strict=True))


def base_tokens(design: Design, spec: LayoutSpec) -> dict[str, str]:
    """The value of every token as the design and layout give them, before a page's own overrides."""
    p, f, t = design.palette, design.fonts, design.look
    light = spec.theme == "light"
    bg, fg, surface = (p.paper, p.ink, "#ffffff") if light else (p.ink, p.paper, mix(p.ink, p.paper))
    return {
        "headline-size": f"{72 if t.weight >= 900 else 56}px", "heading-size": "34px", "text-size": "17px",
        "heading-font": f.heading, "body-font": f.body, "heading-weight": str(t.weight),
        "background": bg, "text-colour": fg, "surface": surface, "accent": p.accent, "accent-2": p.accent_2,
        "muted": p.muted, "button-colour": p.accent_2, "button-text-colour": "#111111",
        "button-radius": f"{max(t.radius, 4) if t.radius else 0}px", "radius": f"{t.radius}px",
        **SPACING[t.spacing],
        "hero-height": f"{hero_height(spec, design)}px",
    }


def hero_height(spec: LayoutSpec, design: Design) -> int:
    """The hero picture's height before a page's own: taller full-bleed, shorter with the words above it."""
    plain = design.look.hero_text == "plain"
    if spec.hero == "full-bleed":
        return 360 if plain else 520
    return 320 if plain else 420


def page_tokens(design: Design, spec: LayoutSpec, overrides: dict[str, str] | None = None) -> dict[str, str]:
    """Every token's value on a page: the design's, with the page's overrides on top."""
    return {**base_tokens(design, spec), **{k: v for k, v in (overrides or {}).items() if k in TOKENS}}


def root_tokens(page_html: str) -> dict[str, str]:
    """The custom properties a page's CSS sets on ``:root`` (what a token change is measured by)."""
    found = re.search(r":root\s*\{(?P<body>[^}]*)\}", page_html)
    if not found:
        return {}
    return {m.group(1): m.group(2).strip() for m in re.finditer(r"--([a-z0-9-]+)\s*:\s*([^;]+);?", found.group("body"))}
