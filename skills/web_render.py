"""A web page from a layout spec: the look derived from a brief, and the HTML/CSS that shows it.

Everything here is pure and deterministic: the same brief gives the same
palette and type pairing (a hash of the brief, nudged by colour words in it),
and the same design, layout spec and images give the same HTML bytes.  The
skills in :mod:`skills.design_to_web` put the results on the canvas.
"""

from __future__ import annotations

import colorsys
import hashlib
import html
import re
from typing import Literal

from pydantic import BaseModel, Field

HeroMode = Literal["contained", "full-bleed"]
Theme = Literal["light", "dark"]

# Hues (0..1) a brief's colour words ask for; otherwise the brief's hash picks one.
_HUE_WORDS: dict[str, float] = {
    "red": 0.0, "crimson": 0.97, "rose": 0.93, "pink": 0.91, "coral": 0.03, "orange": 0.07, "sunset": 0.06,
    "amber": 0.1, "gold": 0.12, "golden": 0.12, "yellow": 0.14, "lime": 0.23, "green": 0.33, "forest": 0.35,
    "garden": 0.3, "mint": 0.43, "teal": 0.5, "ocean": 0.56, "sea": 0.55, "harbour": 0.57, "harbor": 0.57,
    "sky": 0.58, "blue": 0.6, "navy": 0.63, "indigo": 0.68, "violet": 0.75, "purple": 0.78, "lavender": 0.74,
    "plum": 0.83, "coffee": 0.08, "cafe": 0.08, "earth": 0.09, "desert": 0.1,
}
_DARK_WORDS = frozenset({"dark", "night", "noir", "moody", "black", "midnight", "neon"})


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
    """Palette, type pairing, title, tagline and theme of a brief (a colour from a reference wins the hue)."""
    key = digest(brief)
    brief_words = words(brief)
    hue = next((_HUE_WORDS[w] for w in brief_words if w in _HUE_WORDS), key[0] / 255)
    if hint_colours:
        hue = _hue_of(hint_colours[0])
    spread = 0.08 + (key[1] % 40) / 100  # how far the second accent sits from the first
    palette = Palette(
        paper=_hex(hue, 0.96, 0.35),
        ink=_hex(hue, 0.12, 0.3),
        accent=_hex(hue, 0.45, 0.55 + (key[2] % 20) / 100),
        accent_2=_hex(hue + spread, 0.55, 0.5),
        muted=_hex(hue, 0.42, 0.12),
    )
    fonts = TYPE_PAIRINGS[key[3] % len(TYPE_PAIRINGS)]
    meaningful = [w for w in re.findall(r"[A-Za-z0-9']+", brief) if w.lower() not in _FILLER]
    title = " ".join(w.capitalize() for w in meaningful[:2]) or "Untitled"
    tagline = brief.strip().rstrip(".") or title
    return Design(brief=brief, title=title, tagline=tagline, palette=palette, fonts=fonts)


def brief_theme(brief: str) -> Theme:
    """Dark when the brief's words ask for it (night, noir, moody, ...), else light."""
    return "dark" if _DARK_WORDS & set(words(brief)) else "light"


_FILLER = frozenset({
    "a", "an", "the", "for", "of", "and", "or", "to", "in", "on", "with", "site", "website", "page", "web",
    "landing", "portfolio", "homepage", "make", "build", "design", "create", "my", "our", "small", "new",
})


# ---------------------------------------------------------------- HTML


def render_html(design: Design, spec: LayoutSpec, images: list[PageImage]) -> str:
    """A complete page: embedded CSS, a nav bar, one ``<section id=...>`` per spec section, a footer."""
    e = html.escape
    body = "\n".join(_section(name, design, spec, images) for name in spec.sections)
    links = "".join(f'<a href="#{e(_anchor(n))}">{e(_label(n))}</a>' for n in spec.sections if n != "hero")
    return f"""<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{e(design.title)}</title>
<style>
{_css(design, spec)}
</style>
</head>
<body class="theme-{spec.theme} hero-{spec.hero}">
<header class="site-nav"><div class="wrap nav-row"><a class="brand" href="#top">{e(design.title)}</a><nav>{links}</nav></div></header>
<main id="top">
{body}
</main>
<footer class="site-footer"><div class="wrap">&copy; {e(design.title)} &middot; {e(design.fonts.name)}</div></footer>
</body>
</html>
"""


def _anchor(name: str) -> str:
    return slug(name, 60)


def _label(name: str) -> str:
    return name.replace("-", " ").replace("_", " ").strip().capitalize()


def _section(name: str, design: Design, spec: LayoutSpec, images: list[PageImage]) -> str:
    e = html.escape
    anchor = e(_anchor(name))
    if name == "hero":
        background = f" style=\"background-image: url('{e(images[0].path)}')\"" if images else ""
        return (f'<section id="{anchor}" class="hero hero--{spec.hero}">'
                f'<div class="hero__frame"{background}><div class="hero__text">'
                f"<h1>{e(design.title)}</h1><p>{e(design.tagline)}</p>"
                f'<a class="button" href="#contact">Get in touch</a></div></div></section>')
    if name == "gallery":
        figures = "".join(
            f'<figure><img src="{e(i.path)}" alt="{e(i.alt)}" loading="eager"><figcaption>{e(i.alt)}</figcaption></figure>'
            for i in images)
        return (f'<section id="{anchor}" class="gallery"><div class="wrap"><h2>Gallery</h2>'
                f'<div class="grid">{figures}</div></div></section>')
    if name == "about":
        return (f'<section id="{anchor}" class="about"><div class="wrap split"><h2>About</h2><div>'
                f"<p>{e(design.tagline)}.</p><p>{e(_about_line(design))}</p></div></div></section>")
    if name == "contact":
        email = f"hello@{slug(design.title, 24)}.example"
        return (f'<section id="{anchor}" class="contact"><div class="wrap"><h2>Contact</h2>'
                f'<p>Write to <a href="mailto:{e(email)}">{e(email)}</a>, or leave a note.</p>'
                '<form class="contact-form" onsubmit="return false"><input type="text" placeholder="Your name">'
                '<input type="email" placeholder="Your email"><textarea rows="3" placeholder="Message"></textarea>'
                '<button class="button" type="submit">Send</button></form></div></section>')
    return (f'<section id="{anchor}" class="extra"><div class="wrap"><h2>{e(_label(name))}</h2>'
            f"<p>{e(_label(name))} for {e(design.title)}: {e(design.tagline)}.</p></div></section>")


def _about_line(design: Design) -> str:
    keywords = [w for w in words(design.brief) if w not in _FILLER][:4]
    if not keywords:
        return "Made with care."
    return "We care about " + ", ".join(keywords[:-1]) + (" and " if len(keywords) > 1 else "") + keywords[-1] + "."


def _css(design: Design, spec: LayoutSpec) -> str:
    p, f = design.palette, design.fonts
    bg, fg, surface = (p.paper, p.ink, "#ffffff") if spec.theme == "light" else (p.ink, p.paper, _mix(p.ink, p.paper))
    full = spec.hero == "full-bleed"
    hero_frame = (
        "width: 100%; min-height: 520px; border-radius: 0; margin: 0;"
        if full else
        "max-width: 1100px; min-height: 420px; margin: 32px auto 0; border-radius: 18px;"
    )
    return f"""  :root {{ --bg: {bg}; --fg: {fg}; --surface: {surface}; --accent: {p.accent}; --accent-2: {p.accent_2};
    --muted: {p.muted}; --cols: {spec.columns}; --heading: {f.heading}; --body: {f.body}; }}
  * {{ box-sizing: border-box; }}
  html, body {{ margin: 0; padding: 0; }}
  body {{ background: var(--bg); color: var(--fg); font-family: var(--body); font-size: 17px; line-height: 1.55; }}
  h1, h2 {{ font-family: var(--heading); line-height: 1.1; margin: 0 0 16px; }}
  h1 {{ font-size: 56px; }} h2 {{ font-size: 34px; color: var(--accent); }}
  a {{ color: var(--accent); }}
  .wrap {{ max-width: 1100px; margin: 0 auto; padding: 0 32px; }}
  .site-nav {{ background: var(--bg); border-bottom: 3px solid var(--accent); }}
  .nav-row {{ display: flex; align-items: center; justify-content: space-between; height: 64px; }}
  .brand {{ font-family: var(--heading); font-size: 22px; font-weight: bold; color: var(--fg); text-decoration: none; }}
  nav a {{ margin-left: 24px; text-decoration: none; color: var(--fg); }}
  .hero__frame {{ {hero_frame} position: relative; display: flex; align-items: flex-end; overflow: hidden;
    background-color: var(--accent); background-size: cover; background-position: center; }}
  .hero__text {{ width: 100%; padding: 40px {'max(32px, calc((100% - 1036px) / 2))' if full else '40px'};
    color: #ffffff; background: linear-gradient(to top, rgba(0,0,0,0.72), rgba(0,0,0,0)); }}
  .hero__text p {{ font-size: 21px; max-width: 720px; margin: 0 0 20px; }}
  .button {{ display: inline-block; padding: 12px 22px; border: 0; border-radius: 999px; background: var(--accent-2);
    color: #111111; font: inherit; font-weight: bold; text-decoration: none; }}
  section {{ padding: 56px 0; }}
  section.hero {{ padding: {'0' if full else '0 32px'}; }}
  .grid {{ display: grid; grid-template-columns: repeat(var(--cols), 1fr); gap: 20px; }}
  figure {{ margin: 0; background: var(--surface); border-radius: 12px; overflow: hidden; }}
  figure img {{ display: block; width: 100%; aspect-ratio: 4 / 3; object-fit: cover; }}
  figcaption {{ padding: 10px 14px; color: var(--muted); font-size: 14px; }}
  .theme-dark figcaption {{ color: var(--fg); }}
  .theme-dark h2 {{ color: var(--accent-2); }}
  .split {{ display: grid; grid-template-columns: 1fr 2fr; gap: 32px; }}
  .contact-form {{ display: grid; gap: 12px; max-width: 560px; }}
  .contact-form input, .contact-form textarea {{ padding: 12px; border: 1px solid var(--muted); border-radius: 8px;
    background: var(--surface); color: var(--fg); font: inherit; }}
  .site-footer {{ padding: 24px 0; border-top: 1px solid var(--muted); color: var(--muted); font-size: 14px; }}"""


def _mix(a: str, b: str, amount: float = 0.12) -> str:
    pa = [int(a[i:i + 2], 16) for i in (1, 3, 5)]
    pb = [int(b[i:i + 2], 16) for i in (1, 3, 5)]
    return "#" + "".join(f"{round(x + (y - x) * amount):02x}" for x, y in zip(pa, pb, strict=True))
