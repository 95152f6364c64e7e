"""What a web brief asks for: its subject, what it shows, and design tokens read from its adjectives.

"a website for a photography studio: quiet, editorial, lots of white space,
black-and-white portraits" reads as the subject "a photography studio", the
focus "portraits", and tokens: a light theme, generous spacing, serif
headings, plain (not overlaid) hero text and greyscale imagery.  The table of
adjectives is :data:`ADJECTIVES`; ``docs/content.md`` shows it for people.

Adjectives are applied in the order the brief says them, so a later word wins
a clash ("quiet ... but dark" is dark).  Colour words ("teal", "sunset") set
the hue.  The page's copy is written from templates per tone (:data:`COPY`)
filled with the subject and focus, never by pasting the brief back.
"""

from __future__ import annotations

import re
from typing import Any, Literal

from pydantic import BaseModel, Field

from content.topics import head_phrase

Theme = Literal["light", "dark"]
Tone = Literal["quiet", "bold", "playful", "corporate", "warm", "neutral"]
HeadingFamily = Literal["serif", "sans", "mono", "rounded", "display"]


class DesignTokens(BaseModel):
    """The look a brief asks for; ``None`` where the brief says nothing (the brief's hash decides)."""

    theme: Theme = "light"
    imagery: Literal["colour", "greyscale"] = "colour"
    spacing: Literal["compact", "normal", "generous"] = "normal"
    heading: HeadingFamily | None = None
    weight: int = Field(default=700, description="Heading font weight.")
    saturation: float | None = Field(default=None, ge=0, le=1, description="Accent colour saturation.")
    hue: float | None = Field(default=None, ge=0, le=1, description="Accent hue; a colour word in the brief wins.")
    radius: int = Field(default=12, ge=0, le=40, description="Corner radius of images, hero and fields, px.")
    hero_text: Literal["overlay", "plain"] = Field(
        default="overlay", description="Hero words on the picture (overlay) or on the page above it (plain).")
    tone: Tone = "neutral"
    lighting: Literal["neutral", "warm", "cold", "night", "high-key"] = "neutral"
    words: list[str] = Field(default_factory=list, description="The brief's words that set tokens, in order.")


# (pattern, token values): patterns are matched longest first and a matched span is used up, so the "white" of
# "black-and-white" does not also ask for a light theme.
ADJECTIVES: tuple[tuple[str, dict[str, Any]], ...] = (
    (r"black[\s-]*(?:and|&|n)[\s-]*white|b\s*&\s*w|b/w|monochrom(?:e|atic)|gr[ea]yscale",
     {"imagery": "greyscale", "saturation": 0.0}),
    (r"noir", {"imagery": "greyscale", "saturation": 0.0, "theme": "dark", "lighting": "night"}),
    (r"white[\s-]*space|whitespace|lots\s+of\s+space|spacious|airy|breathing\s+room|room\s+to\s+breathe",
     {"spacing": "generous", "theme": "light"}),
    (r"quiet|calm|serene|understated|subtle|restrained|gentle|peaceful",
     {"tone": "quiet", "saturation": 0.25, "spacing": "generous", "hero_text": "plain", "weight": 400}),
    (r"editorial|magazine|literary|journal|bookish",
     {"heading": "serif", "hero_text": "plain", "radius": 0, "tone": "quiet"}),
    (r"elegant|classic|timeless|refined|sophisticated|luxur(?:y|ious)|premium",
     {"heading": "serif", "radius": 2, "weight": 400}),
    (r"minimal(?:ist)?|clean|simple|uncluttered",
     {"spacing": "generous", "saturation": 0.3, "radius": 0, "hero_text": "plain", "heading": "sans"}),
    (r"bold|loud|striking|punchy|confident|dramatic|energetic",
     {"weight": 900, "saturation": 0.85, "heading": "display", "tone": "bold", "hero_text": "overlay"}),
    (r"dark|night(?:club|life)?|club|moody|midnight|after[\s-]dark|gothic",
     {"theme": "dark", "lighting": "night"}),
    (r"neon|electric|vibrant|vivid|colou?rful|saturated|psychedelic",
     {"saturation": 1.0, "imagery": "colour", "theme": "dark", "hue": 0.86, "lighting": "neutral"}),
    (r"playful|fun|whimsical|friendly|cheerful|quirky|kids?|childlike",
     {"heading": "rounded", "radius": 24, "saturation": 0.8, "tone": "playful"}),
    (r"warm|cosy|cozy|rustic|homely|inviting|welcoming", {"hue": 0.07, "tone": "warm", "lighting": "warm"}),
    (r"cool|icy|crisp", {"hue": 0.55, "lighting": "cold"}),
    (r"corporate|professional|business|trustworthy|enterprise|formal|serious",
     {"heading": "sans", "hue": 0.6, "saturation": 0.55, "radius": 4, "tone": "corporate"}),
    (r"technical|developer|engineering|hacker", {"heading": "mono", "radius": 4}),
    (r"light|bright|sunny|white", {"theme": "light", "lighting": "high-key"}),
    (r"compact|dense|busy|packed", {"spacing": "compact"}),
    (r"natural|organic|earthy|botanical", {"hue": 0.27, "saturation": 0.35, "tone": "warm"}),
    (r"retro|vintage|nostalgic", {"heading": "serif", "hue": 0.09, "saturation": 0.45, "tone": "warm"}),
    (r"modern|sleek|contemporary|futuristic", {"heading": "sans", "radius": 8}),
    (r"muted|soft|pastel|faded", {"saturation": 0.3}),
)
"""Brief adjectives and the design tokens each one sets."""

HUE_WORDS: dict[str, float] = {
    "red": 0.0, "crimson": 0.97, "rose": 0.93, "pink": 0.91, "coral": 0.03, "orange": 0.07, "sunset": 0.06,
    "amber": 0.1, "gold": 0.12, "golden": 0.12, "yellow": 0.14, "lime": 0.23, "green": 0.33, "forest": 0.35,
    "garden": 0.3, "mint": 0.43, "teal": 0.5, "ocean": 0.56, "sea": 0.55, "harbour": 0.57, "harbor": 0.57,
    "sky": 0.58, "blue": 0.6, "navy": 0.63, "indigo": 0.68, "violet": 0.75, "purple": 0.78, "lavender": 0.74,
    "plum": 0.83, "magenta": 0.86, "cyan": 0.5, "coffee": 0.08, "cafe": 0.08, "earth": 0.09, "desert": 0.1,
}
"""Hues (0..1) a brief's colour words ask for."""

_FILLER = frozenset({
    "a", "an", "the", "for", "of", "and", "or", "to", "in", "on", "with", "site", "website", "page", "web",
    "landing", "homepage", "make", "build", "design", "create", "my", "our", "new", "lots", "plenty", "lot", "some",
    "very", "really", "feel", "feeling", "look", "vibe", "style", "tone", "but", "please", "that", "is", "it",
    "should", "be", "space", "colours", "colors", "theme", "typography", "type", "fonts", "imagery", "images",
})
# Words of the adjective table that are nouns when they end a phrase ("a neon nightclub").
_NOUNS = frozenset({"nightclub", "club", "magazine", "journal", "kids", "business", "night", "nightlife", "developer"})
_WEB_NOUNS = r"(?:website|web\s*site|site|web\s*page|page|landing\s+page|home\s*page|portfolio|shop\s+front)"


class PageCopy(BaseModel):
    """The words on a page, written from templates: never the brief pasted back."""

    tagline: str
    about: list[str]
    cta: str
    gallery_heading: str
    contact: str = Field(description="The contact line; '{email}' is replaced by the page's address.")
    captions: list[str] = Field(description="One caption (and alt text) per gallery image, in order.")


class BriefReading(BaseModel):
    """A brief read into what the page is for, what it shows, how it looks, and its words."""

    brief: str
    subject: str = Field(description="Who or what the page is for, with an article: 'a photography studio'.")
    name: str = Field(description="The page's name: 'Photography Studio'.")
    focus: str = Field(description="What the pictures show, if the brief says ('portraits'), else ''.")
    tokens: DesignTokens
    page_copy: PageCopy


def read_tokens(brief: str) -> DesignTokens:
    """The design tokens of a brief's adjectives, later words winning; the words that matched, in order."""
    text = brief.lower()
    hits: list[tuple[int, str, dict[str, Any]]] = []
    taken = [False] * len(text)
    for pattern, values in sorted(ADJECTIVES, key=lambda pv: -len(pv[0])):
        for found in re.finditer(rf"\b(?:{pattern})\b", text):
            if any(taken[found.start():found.end()]):
                continue
            taken[found.start():found.end()] = [True] * (found.end() - found.start())
            hits.append((found.start(), found.group(0), values))
    tokens: dict[str, Any] = {}
    for _, _, values in sorted(hits, key=lambda h: h[0]):
        tokens.update(values)
    if tokens.get("imagery") == "greyscale" and tokens.get("lighting") == "warm":
        tokens["lighting"] = "neutral"  # a warm grade would tint black-and-white pictures
    colour = next((HUE_WORDS[w] for w in re.findall(r"[a-z]+", text) if w in HUE_WORDS), None)
    if colour is not None:
        tokens["hue"] = colour
    return DesignTokens(**tokens, words=[word for _, word, _ in sorted(hits, key=lambda h: h[0])])


def read_brief(brief: str) -> BriefReading:
    """Read a brief: subject, name, focus, tokens, and the page's copy."""
    tokens = read_tokens(brief)
    subject, rest = _subject(brief)
    focus = next((p for p in (_plain_phrase(chunk) for chunk in _chunks(rest)) if p), "")
    bare = re.sub(r"^(?:a|an|the)\s+", "", subject, flags=re.I)
    name = _named(brief) or " ".join(w[:1].upper() + w[1:] for w in bare.split()) or "Studio"
    return BriefReading(brief=brief, subject=subject, name=name, focus=focus, tokens=tokens,
                        page_copy=write_copy(tokens.tone, subject, focus))


def _subject(brief: str) -> tuple[str, str]:
    """Who the page is for and the rest of the brief: 'a website for X: ...', else the first plain phrase."""
    found = re.search(rf"\b{_WEB_NOUNS}\s+(?:for|about|of)\s+(?P<s>[^:;,.()\n–—]+)", brief, re.I)
    if found:
        said = re.sub(r"\b(?:called|named)\s+[\"“']?[A-Z][\w&'-]*(?:\s+[A-Z][\w&'-]*)*[\"”']?", " ",
                      found.group("s"))
        phrase = _plain_phrase(said, keep_article=True)
        if phrase:
            # what follows the subject's own phrase ("... with pastel cupcakes") still belongs to the rest
            after = re.split(r"(?<![\w-])(?:with|that|which|who|where)(?![\w-])", said, maxsplit=1)[1:]
            return _with_article(phrase), " , ".join([brief[:found.start()], *after, brief[found.end():]])
    pieces = _chunks(brief)
    for index, chunk in enumerate(pieces):
        phrase = _plain_phrase(chunk, keep_article=True)
        if phrase:
            return _with_article(phrase), " , ".join(pieces[index + 1:])
    return "a studio", brief


def _chunks(text: str) -> list[str]:
    return [c.strip() for c in re.split(r"[:;,.()\n–—]|\s-\s|(?<![\w-])(?:and|with)(?![\w-])", text) if c.strip()]


def _plain_phrase(chunk: str, keep_article: bool = False) -> str:
    """A chunk without its adjectives and filler words, cut to its first noun phrase ('' if nothing is left)."""
    text = re.split(r"(?<![\w-])(?:called|named|with|that|which|who|where)(?![\w-])", chunk.lower())[0]
    for pattern, _ in sorted(ADJECTIVES, key=lambda pv: -len(pv[0])):
        text = re.sub(rf"\b(?:{pattern})\b", lambda m: m.group(0) if m.group(0) in _NOUNS and m.end() == len(
            text.rstrip()) else " ", text)
    text = re.sub(r"\b(?:lots|plenty|a\s+lot)\s+of\b", " ", text)
    text = re.sub(r"\b(?:make|build|design|create|i\s+want|i\s+need|we\s+need)\b", " ", text)
    words = [w for w in re.findall(r"[a-z0-9][a-z0-9&'-]*", text)]
    articles = {"a", "an", "the"}
    kept = [w for w in words if w not in _FILLER or (keep_article and w in articles)]
    while kept and kept[-1] in articles:
        kept.pop()
    if not [w for w in kept if w not in articles]:
        return ""
    return head_phrase(" ".join(kept))


def _with_article(phrase: str) -> str:
    if re.match(r"^(?:a|an|the|my|our)\s", phrase):
        return re.sub(r"^(?:my|our)\s", "a ", phrase)
    return ("an " if phrase[:1] in "aeiou" else "a ") + phrase


def _named(brief: str) -> str:
    found = re.search(r"\b(?:called|named)\s+[\"“']?(?P<n>[A-Z][\w&'-]*(?:\s+[A-Z][\w&'-]*){0,3})", brief)
    return found.group("n") if found else ""


_IRREGULAR = {"loaves": "loaf", "leaves": "leaf", "knives": "knife", "shelves": "shelf", "wolves": "wolf",
              "halves": "half", "lives": "life", "people": "person", "children": "child", "men": "man",
              "women": "woman", "feet": "foot", "teeth": "tooth", "mice": "mouse", "geese": "goose"}


def singular(noun_phrase: str) -> str:
    """A rough singular of a phrase's last word ('portraits' -> 'portrait', 'dishes' -> 'dish')."""
    words = noun_phrase.split()
    if not words:
        return noun_phrase
    last = words[-1]
    if last.lower() in _IRREGULAR:
        last = _IRREGULAR[last.lower()]
    elif re.search(r"ies$", last):
        last = last[:-3] + "y"
    elif re.search(r"(?:ches|shes|sses|xes)$", last):
        last = last[:-2]
    elif re.search(r"[^su]s$", last):
        last = last[:-1]
    return " ".join([*words[:-1], last])


# tone -> tagline with focus, tagline without, about paragraphs, call to action, contact line
COPY: dict[Tone, dict[str, Any]] = {
    "quiet": {"tagline": ("{Focus}, made slowly and with care.", "Made slowly and with care."),
              "about": ("We are {subject}. We take on a few commissions at a time, so each one has our full "
                        "attention.", "Nothing is rushed and nothing is added for show; what stays is what matters."),
              "cta": "Start a conversation", "gallery": ("Selected {focus}", "Selected work"),
              "contact": "Write to {email}. We answer every letter within two working days."},
    "bold": {"tagline": ("{Focus} with no half measures.", "No half measures."),
             "about": ("We are {subject} that never plays it safe.",
                       "Every detail is built to be remembered: big ideas, made loud, made to last."),
             "cta": "Get on the list", "gallery": ("{Focus}, up close", "Up close"),
             "contact": "Drop a line to {email}; the answer comes fast."},
    "playful": {"tagline": ("{Focus}, with a grin.", "Serious fun, made with care."),
                "about": ("Hello! We are {subject}, and we love what we do.",
                          "Come for a look, stay for the good company."),
                "cta": "Say hello", "gallery": ("Our favourite {focus}", "Our favourites"),
                "contact": "Say hello at {email}, we would love to hear from you."},
    "corporate": {"tagline": ("{Focus} you can rely on.", "Results you can rely on."),
                  "about": ("We are {subject} trusted by teams that need dependable results.",
                            "Clear scope, fixed timelines and one point of contact for every engagement."),
                  "cta": "Book a consultation", "gallery": ("Recent {focus}", "Recent work"),
                  "contact": "Reach our team at {email}; we respond within one business day."},
    "warm": {"tagline": ("{Focus}, and a warm welcome.", "Come in and stay a while."),
             "about": ("We are {subject}, run by people who know the regulars by name.",
                       "Pull up a chair: there is always room for one more."),
             "cta": "Come and visit", "gallery": ("{Focus}, as we make them", "A look around"),
             "contact": "Write to {email}, or simply drop by."},
    "neutral": {"tagline": ("{Focus}, done properly.", "Done properly, every time."),
                "about": ("We are {subject}, small enough to know every project and experienced enough to do "
                          "it well.", "Tell us what you have in mind and we will show you what is possible."),
                "cta": "Get in touch", "gallery": ("Selected {focus}", "Selected work"),
                "contact": "Write to {email}, or leave a note below."},
}
"""Copy templates per tone, filled with the brief's subject and focus."""

_CAPTIONS = ("a wide view", "a closer look", "the details", "in the evening")


def write_copy(tone: Tone, subject: str, focus: str) -> PageCopy:
    """The page's words for a tone, filled with the subject ('a photography studio') and focus ('portraits')."""
    t = COPY[tone]

    def put(template: str) -> str:
        text = template.replace("{subject}", subject).replace("{focus}", focus)
        text = text.replace("{Focus}", focus[:1].upper() + focus[1:])
        return text[:1].upper() + text[1:]

    pick = 0 if focus else 1
    # Without a focus the captions say what each picture frames; repeating the subject's name adds nothing.
    what = singular(focus)
    captions = [f"{what[:1].upper()}{what[1:]}, {c}" if focus else c[:1].upper() + c[1:] for c in _CAPTIONS]
    return PageCopy(tagline=put(t["tagline"][pick]), about=[put(p) for p in t["about"]], cta=t["cta"],
                    gallery_heading=put(t["gallery"][pick]), contact=t["contact"], captions=captions)


__all__ = ["ADJECTIVES", "COPY", "HUE_WORDS", "BriefReading", "DesignTokens", "PageCopy", "read_brief",
           "read_tokens", "singular", "write_copy"]
