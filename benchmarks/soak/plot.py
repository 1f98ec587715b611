"""The soak's plot: open descriptors and RSS over time, one standalone SVG (the same plain
hand-written SVG as `switchboard bench --plot`, no plotting library)."""


def esc(s):
    return s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def svg(samples, events, title):
    """samples: (seconds, fds, rss KiB, start number); events: (seconds, label)."""
    width, height = 760, 360
    left, right, top, bottom = 60, 60, 40, 50
    pw, ph = width - left - right, height - top - bottom
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
           'font-family="sans-serif" font-size="11">',
           '<rect width="100%" height="100%" fill="white"/>',
           f'<text x="{left}" y="22" font-size="14">{esc(title)}</text>']
    if not samples:
        out.append(f'<text x="{left}" y="{top + 20}">no samples</text></svg>')
        return "\n".join(out) + "\n"
    t_max = max(s[0] for s in samples) or 1
    fd_max = max(s[1] for s in samples) * 1.15 or 1
    rss_max = max(s[2] for s in samples) / 1024 * 1.15 or 1

    def x(t):
        return left + t / t_max * pw

    def y(v, vmax):
        return top + ph - v / vmax * ph

    out.append(f'<line x1="{left}" y1="{top + ph}" x2="{left + pw}" y2="{top + ph}" stroke="black"/>')
    out.append(f'<line x1="{left}" y1="{top}" x2="{left}" y2="{top + ph}" stroke="black"/>')
    out.append(f'<line x1="{left + pw}" y1="{top}" x2="{left + pw}" y2="{top + ph}" stroke="black"/>')
    for t, label in events:
        ex = x(t)
        out.append(f'<line x1="{ex:.1f}" y1="{top}" x2="{ex:.1f}" y2="{top + ph}" stroke="#999" stroke-dasharray="4 3"/>')
        out.append(f'<text x="{ex + 3:.1f}" y="{top + 12}" fill="#666">{esc(label)}</text>')
    # One polyline per server start, so the restart shows as a break.
    for series, vmax, color, scale in ((1, fd_max, "#c0504d", 1), (2, rss_max, "#4a7ebb", 1024)):
        starts = sorted({s[3] for s in samples})
        for start in starts:
            pts = " ".join(f"{x(s[0]):.1f},{y(s[series] / scale, vmax):.1f}" for s in samples if s[3] == start)
            out.append(f'<polyline points="{pts}" fill="none" stroke="{color}" stroke-width="1.5"/>')
    for i in range(5):
        frac = i / 4
        ty = top + ph - frac * ph
        out.append(f'<text x="{left - 5}" y="{ty + 4:.1f}" text-anchor="end" fill="#c0504d">{fd_max * frac:.0f}</text>')
        out.append(f'<text x="{left + pw + 5}" y="{ty + 4:.1f}" fill="#4a7ebb">{rss_max * frac:.1f}</text>')
        tx = left + frac * pw
        out.append(f'<text x="{tx:.1f}" y="{top + ph + 16}" text-anchor="middle">{t_max * frac / 60:.1f}</text>')
    out.append(f'<text x="{left + pw / 2}" y="{height - 12}" text-anchor="middle">minutes</text>')
    out.append(f'<text x="15" y="{top + ph / 2}" transform="rotate(-90 15 {top + ph / 2})" text-anchor="middle" '
               'fill="#c0504d">open descriptors</text>')
    out.append(f'<text x="{width - 12}" y="{top + ph / 2}" transform="rotate(90 {width - 12} {top + ph / 2})" '
               'text-anchor="middle" fill="#4a7ebb">RSS (MiB)</text>')
    out.append("</svg>")
    return "\n".join(out) + "\n"
