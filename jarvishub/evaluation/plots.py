"""Inline SVG plots drawn here, so the report needs no plotting library, no script and no network.

Every plot is an ``<svg class="plot" role="img">`` with a ``<title>`` and a
``<desc>`` (its accessible name and a text version of its data), a
``rect.plot-area`` and marks with the class ``mark`` (``polyline.line``,
``circle.point``, ``rect.bar``) drawn inside that area, axes with ticks and
labels, and a legend.  Every text is HTML-escaped: labels may come from
scenario files.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from html import escape

WIDTH = 600
MIN_SLOT = 40
"""The narrowest x slot of a bar group (room for a label like "S12 #10"); more groups make a wider plot."""
HEIGHT = 340
MARGIN_LEFT = 72
MARGIN_RIGHT = 16
MARGIN_TOP = 44
MARGIN_BOTTOM = 64
ZERO_BAR_PX = 2.0
"""A bar of value 0 is drawn this tall, so "zero calls" is visible and not mistaken for "not measured"."""
HEADROOM = 8
PALETTE = ["#2563eb", "#ea580c", "#16a34a", "#9333ea", "#0891b2", "#be123c"]


@dataclass(frozen=True)
class Series:
    """One agent's values, aligned with the plot's x positions (None: not measured there)."""

    label: str
    values: list[float | None]
    color: str


def colors(labels: list[str]) -> dict[str, str]:
    """A stable colour per label (the first agent blue, the second orange, ...)."""
    return {label: PALETTE[i % len(PALETTE)] for i, label in enumerate(labels)}


def nice_ticks(top: float, count: int = 5) -> list[float]:
    """Round tick values from 0 to at least ``top`` (steps of 1, 2 or 5 times a power of ten)."""
    if not top or top <= 0 or not math.isfinite(top):
        top = 1.0
    raw = top / count
    power = 10 ** math.floor(math.log10(raw))
    step = next(m * power for m in (1, 2, 2.5, 5, 10) if m * power >= raw)
    n = math.ceil(top / step - 1e-9)
    return [round(i * step, 10) for i in range(n + 1)]


def number(value: float) -> str:
    """A short tick label: 41000 -> 41k, 2500000 -> 2.5M, 0.25 -> 0.25."""
    if abs(value) >= 1_000_000:
        return f"{value / 1_000_000:g}M"
    if abs(value) >= 1_000:
        return f"{value / 1_000:g}k"
    return f"{value:g}"


def label_step(count: int, most: int = 20) -> int:
    """Label every n-th x position so that at most about ``most`` labels show (1, 2, 5, 10, 20, ...)."""
    step = 1
    while count / step > most:
        step = next(m for m in (2, 5, 10, 20, 50, 100, 200, 500, 1000) if m > step) if step < 1000 else step * 2
    return step


class _Frame:
    """The coordinate system of one plot: data values to pixels inside the plot area."""

    def __init__(self, y_max: float, outer_width: float = WIDTH) -> None:
        self.outer_width = outer_width
        self.left = MARGIN_LEFT
        self.top = MARGIN_TOP
        self.width = outer_width - MARGIN_LEFT - MARGIN_RIGHT
        self.height = HEIGHT - MARGIN_TOP - MARGIN_BOTTOM
        self.ticks = nice_ticks(y_max)
        self.y_top = self.ticks[-1]

    @property
    def bottom(self) -> float:
        return self.top + self.height

    def y(self, value: float) -> float:
        # The top tick sits HEADROOM below the area's edge, so a point drawn at the maximum stays inside.
        return self.bottom - (value / self.y_top) * (self.height - HEADROOM)


def _open(plot_id: str, kind: str, title: str, desc: str, width: float) -> list[str]:
    return [
        f'<svg class="plot" data-kind="{kind}" id="{plot_id}" role="img" '
        f'aria-labelledby="{plot_id}-title {plot_id}-desc" viewBox="0 0 {width:g} {HEIGHT}" '
        f'width="{width:g}" height="{HEIGHT}" xmlns="http://www.w3.org/2000/svg">',
        f'<title id="{plot_id}-title">{escape(title)}</title>',
        f'<desc id="{plot_id}-desc">{escape(desc)}</desc>',
        f'<text class="plot-title" x="{width / 2:g}" y="18" text-anchor="middle">{escape(title)}</text>',
    ]


def _axes(frame: _Frame, x_label: str, y_label: str, x_label_y: float) -> list[str]:
    parts = [f'<rect class="plot-area" x="{frame.left}" y="{frame.top}" width="{frame.width}" '
             f'height="{frame.height}" fill="#ffffff" stroke="#cbd5e1"/>', '<g class="axis y">']
    for tick in frame.ticks:
        y = frame.y(tick)
        parts.append(f'<line x1="{frame.left - 5}" y1="{y:.1f}" x2="{frame.left + frame.width}" y2="{y:.1f}" '
                     f'stroke="#e2e8f0"/>')
        parts.append(f'<text x="{frame.left - 8}" y="{y + 4:.1f}" text-anchor="end">{escape(number(tick))}</text>')
    parts.append("</g>")
    parts.append(f'<line class="axis-line" x1="{frame.left}" y1="{frame.bottom}" x2="{frame.left + frame.width}" '
                 f'y2="{frame.bottom}" stroke="#334155"/>')
    parts.append(f'<line class="axis-line" x1="{frame.left}" y1="{frame.top}" x2="{frame.left}" y2="{frame.bottom}" '
                 f'stroke="#334155"/>')
    parts.append(f'<text class="axis-label x" x="{frame.left + frame.width / 2}" y="{x_label_y}" '
                 f'text-anchor="middle">{escape(x_label)}</text>')
    middle = frame.top + frame.height / 2
    parts.append(f'<text class="axis-label y" x="16" y="{middle}" text-anchor="middle" '
                 f'transform="rotate(-90 16 {middle})">{escape(y_label)}</text>')
    return parts


def _legend(series: list[Series], width: float, extra: tuple[tuple[str, str], ...] = ()) -> list[str]:
    parts = ['<g class="legend">']
    x = width - MARGIN_RIGHT
    entries = [(s.label, s.color, "box") for s in series] + [(label, color, "rule") for label, color in extra]
    for label, color, shape in reversed(entries):
        x -= 14 + 7 * len(label) + 18
        if shape == "box":
            parts.append(f'<rect x="{x}" y="28" width="12" height="12" fill="{color}"/>')
        else:
            parts.append(f'<line x1="{x}" y1="34" x2="{x + 12}" y2="34" stroke="{color}" stroke-dasharray="4 2"/>')
        parts.append(f'<text x="{x + 16}" y="38">{escape(label)}</text>')
    parts.append("</g>")
    return parts


def _max(series: list[Series], floor: float = 0.0) -> float:
    values = [v for s in series for v in s.values if v is not None]
    return max([floor, *values])


def line_plot(plot_id: str, title: str, x_label: str, y_label: str, xs: list[int],
              series: list[Series]) -> str:
    """One line per series over integer x positions; gaps where a value is None; a point at every value."""
    frame = _Frame(_max(series))
    span = max(1, len(xs) - 1)

    def px(i: int) -> float:
        return frame.left + 12 + (frame.width - 24) * (i / span if len(xs) > 1 else 0.5)

    desc = "; ".join(f"{s.label}: " + ", ".join(f"{x}={'n/a' if v is None else number(v)}"
                                                  for x, v in zip(xs, s.values)) for s in series)
    parts = _open(plot_id, "line", title, desc, WIDTH) + _axes(frame, x_label, y_label, frame.bottom + 40)
    parts.append('<g class="axis x">')
    every = label_step(len(xs))
    for i, x in enumerate(xs):
        if i % every == 0 or i == len(xs) - 1:
            parts.append(f'<text x="{px(i):.1f}" y="{frame.bottom + 18}" text-anchor="middle">{escape(str(x))}</text>')
    parts.append("</g>")
    radius = 3.5 if len(xs) <= 30 else 2.0
    for s in series:
        parts.append(f'<g class="series" data-label="{escape(s.label)}">')
        run: list[str] = []
        for i, value in enumerate([*s.values, None]):
            if value is not None:
                run.append(f"{px(i):.1f},{frame.y(value):.1f}")
                continue
            if len(run) > 1:
                parts.append(f'<polyline class="mark line" points="{" ".join(run)}" fill="none" '
                             f'stroke="{s.color}" stroke-width="2.5"/>')
            run = []
        for i, value in enumerate(s.values):
            if value is not None:
                parts.append(f'<circle class="mark point" cx="{px(i):.1f}" cy="{frame.y(value):.1f}" r="{radius:g}" '
                             f'fill="{s.color}"><title>{escape(f"{s.label}, {x_label} {xs[i]}: {number(value)}")}'
                             f'</title></circle>')
        parts.append("</g>")
    parts += _legend(series, WIDTH)
    parts.append("</svg>")
    return "\n".join(parts)


def grouped_bars(plot_id: str, title: str, x_label: str, y_label: str, groups: list[str], series: list[Series],
                 *, reference: float | None = None, reference_label: str = "") -> str:
    """A group of bars per x label, one bar per series; "n/a" where a value is None; an optional dashed
    reference line (e.g. locality 1.0)."""
    width = max(WIDTH, MARGIN_LEFT + MARGIN_RIGHT + MIN_SLOT * len(groups))
    frame = _Frame(_max(series, reference or 0.0), width)
    slot = frame.width / max(1, len(groups))
    bar = min(28.0, slot * 0.8 / max(1, len(series)))
    desc = "; ".join(f"{g}: " + ", ".join(f"{s.label} {'n/a' if s.values[i] is None else number(s.values[i])}"
                                          for s in series) for i, g in enumerate(groups))  # type: ignore[arg-type]
    parts = _open(plot_id, "bars", title, desc, width) + _axes(frame, x_label, y_label, frame.bottom + 40)
    parts.append('<g class="axis x">')
    for i, group in enumerate(groups):
        cx = frame.left + slot * (i + 0.5)
        parts.append(f'<text x="{cx:.1f}" y="{frame.bottom + 18}" text-anchor="middle">{escape(group)}</text>')
    parts.append("</g>")
    for k, s in enumerate(series):
        parts.append(f'<g class="series" data-label="{escape(s.label)}">')
        for i, value in enumerate(s.values):
            x = frame.left + slot * (i + 0.5) - bar * len(series) / 2 + bar * k
            if value is None:
                parts.append(f'<text class="na" x="{x + bar / 2:.1f}" y="{frame.bottom - 4}" '
                             f'text-anchor="middle">n/a</text>')
                continue
            top = min(frame.y(value), frame.bottom - ZERO_BAR_PX)
            parts.append(f'<rect class="mark bar" x="{x + 1:.1f}" y="{top:.1f}" width="{bar - 2:.1f}" '
                         f'height="{frame.bottom - top:.1f}" fill="{s.color}">'
                         f'<title>{escape(f"{s.label}, {groups[i]}: {number(value)}")}</title></rect>')
        parts.append("</g>")
    extra: tuple[tuple[str, str], ...] = ()
    if reference is not None:
        y = frame.y(reference)
        parts.append(f'<line class="reference" x1="{frame.left}" y1="{y:.1f}" x2="{frame.left + frame.width}" '
                     f'y2="{y:.1f}" stroke="#0f172a" stroke-dasharray="4 2"/>')
        extra = ((reference_label or number(reference), "#0f172a"),)
    parts += _legend(series, width, extra)
    parts.append("</svg>")
    return "\n".join(parts)
