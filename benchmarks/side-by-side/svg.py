"""Small inline-SVG charts for the report: lines over categories and grouped or stacked bars, on
linear or logarithmic axes. Standard library only, so the report needs nothing installed.
"""
import html
import math

COLORS = {"nsc": "#1b7837", "hive": "#c2410c", "iceberg": "#2563eb"}
RATE_COLORS = ["#7c3aed", "#0f766e", "#b45309", "#be123c", "#334155"]
FONT = 'font-family="sans-serif" font-size="11"'


def _escape(text):
    return html.escape(str(text), quote=True)


def _log_ticks(low, high):
    ticks, value = [], 10 ** math.floor(math.log10(low))
    while value <= high * 1.0001:
        for factor in (1, 2, 5):
            tick = value * factor
            if low * 0.9999 <= tick <= high * 1.0001:
                ticks.append(tick)
        value *= 10
    return ticks


def _linear_ticks(high, count=5):
    if high <= 0:
        return [0]
    step = 10 ** math.floor(math.log10(high / count))
    for factor in (1, 2, 5, 10):
        if high / (step * factor) <= count:
            step *= factor
            break
    return [step * i for i in range(int(high / step) + 2) if step * i <= high * 1.05]


def format_number(value):
    if value == 0:
        return "0"
    magnitude = abs(value)
    for limit, suffix in ((1e12, "T"), (1e9, "G"), (1e6, "M"), (1e3, "k")):
        if magnitude >= limit:
            return f"{value / limit:g}{suffix}"
    if magnitude >= 1:
        return f"{value:g}"
    return f"{value:.2g}"


class Axis:
    """Maps values to pixels between lo and hi (pixels), linear or log."""

    def __init__(self, values, pixel_lo, pixel_hi, log=False, include=()):
        values = [v for v in list(values) + list(include) if v is not None and (v > 0 or not log)]
        self.log = log
        if log:
            low = min(values) if values else 1
            high = max(values) if values else 10
            self.low = 10 ** math.floor(math.log10(low))
            self.high = 10 ** math.ceil(math.log10(high))
            if self.high == self.low:
                self.high *= 10
            self.ticks = _log_ticks(self.low, self.high)
            if len(self.ticks) > 12:
                self.ticks = [t for t in self.ticks if f"{t:.0e}".startswith("1")]
        else:
            self.low = 0
            self.high = max(values) * 1.05 if values and max(values) > 0 else 1
            self.ticks = _linear_ticks(self.high)
        self.pixel_lo, self.pixel_hi = pixel_lo, pixel_hi

    def __call__(self, value):
        if self.log:
            value = max(value, self.low)
            fraction = (math.log10(value) - math.log10(self.low)) / (math.log10(self.high) - math.log10(self.low))
        else:
            fraction = (value - self.low) / (self.high - self.low)
        return self.pixel_lo + fraction * (self.pixel_hi - self.pixel_lo)


def _legend(items, x, y):
    parts, offset = [], 0
    for name, color, dash in items:
        parts.append(f'<line x1="{x + offset}" y1="{y}" x2="{x + offset + 18}" y2="{y}" stroke="{color}" stroke-width="3"'
                     + (f' stroke-dasharray="{dash}"' if dash else "") + "/>")
        parts.append(f'<text x="{x + offset + 22}" y="{y + 4}" {FONT}>{_escape(name)}</text>')
        offset += 30 + 6.5 * len(name)
    return "".join(parts)


def line_chart(title, x_labels, series, y_label, log=True, reference=None, width=640, height=340):
    """series: [{"name", "color", "dash", "values": [float or None per x label]}]; reference: a
    horizontal line (like speedup 1) drawn dashed."""
    left, right, top, bottom = 64, 16, 40, 62
    values = [v for s in series for v in s["values"] if v is not None]
    y = Axis(values, height - bottom, top, log, include=[reference] if reference else [])
    step = (width - left - right) / max(1, len(x_labels) - 1)
    x = [left + i * step for i in range(len(x_labels))]
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" viewBox="0 0 {width} {height}">',
           f'<text x="{left}" y="16" {FONT} font-weight="bold">{_escape(title)}</text>']
    for tick in y.ticks:
        out.append(f'<line x1="{left}" y1="{y(tick):.1f}" x2="{width - right}" y2="{y(tick):.1f}" stroke="#e5e7eb"/>')
        out.append(f'<text x="{left - 4}" y="{y(tick) + 4:.1f}" text-anchor="end" {FONT}>{format_number(tick)}</text>')
    if reference:
        out.append(f'<line x1="{left}" y1="{y(reference):.1f}" x2="{width - right}" y2="{y(reference):.1f}" stroke="#111" stroke-dasharray="4 3"/>')
    for position, label in zip(x, x_labels):
        out.append(f'<text x="{position:.1f}" y="{height - bottom + 16}" text-anchor="middle" {FONT}>{_escape(label)}</text>')
    out.append(f'<text x="14" y="{(top + height - bottom) / 2}" {FONT} transform="rotate(-90 14 {(top + height - bottom) / 2})" '
               f'text-anchor="middle">{_escape(y_label)}</text>')
    for s in series:
        points = [(px, y(v)) for px, v in zip(x, s["values"]) if v is not None and (v > 0 or not log)]
        if len(points) > 1:
            path = " ".join(f"{px:.1f},{py:.1f}" for px, py in points)
            out.append(f'<polyline points="{path}" fill="none" stroke="{s["color"]}" stroke-width="2"'
                       + (f' stroke-dasharray="{s["dash"]}"' if s.get("dash") else "") + "/>")
        for px, py in points:
            out.append(f'<circle cx="{px:.1f}" cy="{py:.1f}" r="3" fill="{s["color"]}"/>')
    out.append(_legend([(s["name"], s["color"], s.get("dash")) for s in series], left, height - 18))
    out.append("</svg>")
    return "".join(out)


def bar_chart(title, categories, series, x_label, log=True, reference=None, width=760, bar=7, value_format=format_number):
    """Horizontal grouped bars: one group per category, one bar per series.
    series: [{"name", "color", "values": [float or None per category]}]."""
    left, right, top = 200, 70, 40
    group = bar * len(series) + 6
    height = top + group * len(categories) + 50
    values = [v for s in series for v in s["values"] if v is not None]
    x = Axis(values, left, width - right, log, include=[reference] if reference else [])
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" viewBox="0 0 {width} {height}">',
           f'<text x="8" y="16" {FONT} font-weight="bold">{_escape(title)}</text>']
    bottom = top + group * len(categories)
    for tick in x.ticks:
        out.append(f'<line x1="{x(tick):.1f}" y1="{top}" x2="{x(tick):.1f}" y2="{bottom}" stroke="#e5e7eb"/>')
        out.append(f'<text x="{x(tick):.1f}" y="{bottom + 14}" text-anchor="middle" {FONT}>{format_number(tick)}</text>')
    out.append(f'<text x="{(left + width - right) / 2}" y="{bottom + 30}" text-anchor="middle" {FONT}>{_escape(x_label)}</text>')
    for index, category in enumerate(categories):
        y0 = top + index * group
        out.append(f'<text x="{left - 6}" y="{y0 + group / 2 + 3:.1f}" text-anchor="end" {FONT}>{_escape(category)}</text>')
        for number, s in enumerate(series):
            value = s["values"][index]
            y1 = y0 + number * bar
            if value is None:
                out.append(f'<text x="{left + 4}" y="{y1 + bar - 1}" {FONT} font-size="8" fill="#b91c1c">{_escape(s.get("missing", "n/a"))}</text>')
                continue
            end = x(value) if (value > 0 or not log) else left
            start = x(x.low) if log else x(0)
            out.append(f'<rect x="{start:.1f}" y="{y1}" width="{max(0.5, end - start):.1f}" height="{bar - 1}" fill="{s["color"]}">'
                       f'<title>{_escape(s["name"])}: {_escape(value_format(value))}</title></rect>')
    if reference:
        out.append(f'<line x1="{x(reference):.1f}" y1="{top}" x2="{x(reference):.1f}" y2="{bottom}" stroke="#111" stroke-dasharray="4 3"/>')
    out.append(_legend([(s["name"], s["color"], None) for s in series], left, height - 8))
    out.append("</svg>")
    return "".join(out)


def stacked_bar_chart(title, categories, stacks, x_label, width=760, bar=16):
    """Horizontal stacked bars, one per category. stacks: [{"name", "color", "values"}]."""
    left, right, top = 200, 90, 40
    height = top + (bar + 8) * len(categories) + 50
    totals = [sum(s["values"][i] or 0 for s in stacks) for i in range(len(categories))]
    x = Axis(totals, left, width - right, log=False)
    bottom = top + (bar + 8) * len(categories)
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" viewBox="0 0 {width} {height}">',
           f'<text x="8" y="16" {FONT} font-weight="bold">{_escape(title)}</text>']
    for tick in x.ticks:
        out.append(f'<line x1="{x(tick):.1f}" y1="{top}" x2="{x(tick):.1f}" y2="{bottom}" stroke="#e5e7eb"/>')
        out.append(f'<text x="{x(tick):.1f}" y="{bottom + 14}" text-anchor="middle" {FONT}>{format_number(tick)}</text>')
    out.append(f'<text x="{(left + width - right) / 2}" y="{bottom + 30}" text-anchor="middle" {FONT}>{_escape(x_label)}</text>')
    for index, category in enumerate(categories):
        y0 = top + index * (bar + 8)
        out.append(f'<text x="{left - 6}" y="{y0 + bar / 2 + 4:.1f}" text-anchor="end" {FONT}>{_escape(category)}</text>')
        start = x(0)
        for s in stacks:
            value = s["values"][index] or 0
            width_px = x(value) - x(0)
            out.append(f'<rect x="{start:.1f}" y="{y0}" width="{max(0, width_px):.1f}" height="{bar}" fill="{s["color"]}">'
                       f'<title>{_escape(s["name"])}: {value:.2f}</title></rect>')
            start += width_px
        out.append(f'<text x="{start + 4:.1f}" y="{y0 + bar / 2 + 4:.1f}" {FONT}>{totals[index]:.1f}</text>')
    out.append(_legend([(s["name"], s["color"], None) for s in stacks], left, height - 8))
    out.append("</svg>")
    return "".join(out)
