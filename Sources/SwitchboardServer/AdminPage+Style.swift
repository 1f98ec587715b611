extension AdminPage {
  /// The page's one `<style>` element (allowed by its hash in `contentSecurityPolicy`).
  /// Light and dark follow `prefers-color-scheme`; below 700 px wide the page is one column
  /// and the tables scroll sideways inside their own boxes.
  static let style: String = #"""

    :root { color-scheme: light dark; --bg: #f4f5f7; --panel: #fff; --line: #dde1e6; --muted: #6b7280;
      --text: #111827; --accent: #2563eb; --accent2: #d97706; --ok: #16a34a; --bad: #dc2626;
      --grid: #e5e7eb; }
    @media (prefers-color-scheme: dark) { :root { --bg: #111418; --panel: #1b1f24; --line: #2d333b;
      --muted: #9aa4b2; --text: #e6edf3; --accent: #58a6ff; --accent2: #f0b44c; --ok: #3fb950;
      --bad: #f85149; --grid: #2d333b; } }
    * { box-sizing: border-box; }
    html, body { margin: 0; }
    body { background: var(--bg); color: var(--text);
      font: 15px/1.4 -apple-system, BlinkMacSystemFont, "Segoe UI", Roboto, sans-serif; }
    [hidden] { display: none !important; }
    header { display: flex; align-items: center; gap: .75rem; padding: .6rem 1rem; flex-wrap: wrap;
      padding-top: max(.6rem, env(safe-area-inset-top)); background: var(--panel);
      border-bottom: 1px solid var(--line); position: sticky; top: 0; z-index: 2; }
    header h1 { font-size: 1.05rem; margin: 0; white-space: nowrap; }
    header h1 a { color: inherit; text-decoration: none; }
    #node { color: var(--muted); font-size: .85rem; overflow: hidden; text-overflow: ellipsis;
      white-space: nowrap; flex: 1; min-width: 4rem; }
    #stream { font-size: .85rem; color: var(--muted); white-space: nowrap; }
    #stream::before { content: ""; display: inline-block; width: .55rem; height: .55rem;
      border-radius: 50%; margin-right: .35rem; background: var(--accent2); }
    #stream[data-state="live"]::before { background: var(--ok); }
    #stream[data-state="offline"]::before { background: var(--bad); }
    main { padding: 1rem; max-width: 80rem; margin: 0 auto; display: grid; gap: 1rem;
      padding-bottom: max(1rem, env(safe-area-inset-bottom)); }
    section.card { background: var(--panel); border: 1px solid var(--line); border-radius: .6rem;
      padding: .8rem 1rem; min-width: 0; }
    h2 { font-size: .95rem; margin: 0 0 .6rem; display: flex; gap: .5rem; align-items: baseline;
      flex-wrap: wrap; }
    h2 .sub { color: var(--muted); font-weight: normal; font-size: .85rem; }
    .scroll { overflow-x: auto; }
    table { border-collapse: collapse; width: 100%; font-variant-numeric: tabular-nums; }
    th, td { text-align: left; padding: .35rem .5rem; border-bottom: 1px solid var(--line);
      white-space: nowrap; }
    th { font-size: .8rem; color: var(--muted); font-weight: 600; }
    td.num, th.num, td.act { text-align: right; }
    tbody tr:last-child td { border-bottom: 0; }
    th button { font: inherit; color: inherit; background: none; border: 0; padding: 0; cursor: pointer; }
    th[aria-sort="ascending"] button::after { content: " ▲"; }
    th[aria-sort="descending"] button::after { content: " ▼"; }
    td a { color: var(--accent); text-decoration: none; font-weight: 600; }
    .self { color: var(--muted); font-size: .8rem; }
    .empty { color: var(--muted); font-style: italic; }
    #transports { display: grid; grid-template-columns: repeat(5, 1fr); gap: .5rem; margin: 0; }
    #transports div { border: 1px solid var(--line); border-radius: .5rem; padding: .4rem .6rem; }
    #transports dt { font-size: .8rem; color: var(--muted); }
    #transports dd { margin: 0; font-size: 1.3rem; font-variant-numeric: tabular-nums; }
    #charts { display: grid; grid-template-columns: repeat(auto-fill, minmax(22rem, 1fr)); gap: 1rem; }
    figure { margin: 0; min-width: 0; }
    figcaption { display: flex; gap: .6rem; align-items: baseline; flex-wrap: wrap; font-size: .85rem; }
    figcaption b { font-weight: 600; }
    .legend { color: var(--muted); font-variant-numeric: tabular-nums; }
    .legend i { display: inline-block; width: .7rem; height: .2rem; vertical-align: middle;
      margin-right: .25rem; background: var(--accent); }
    .legend.s1 i { background: var(--accent2); }
    .plot { position: relative; height: 7rem; border-left: 1px solid var(--line);
      border-bottom: 1px solid var(--line); margin-top: .3rem; }
    .plot svg { position: absolute; inset: 0; width: 100%; height: 100%; }
    .plot .max { position: absolute; top: 0; left: .3rem; font-size: .7rem; color: var(--muted); }
    .axis { display: flex; justify-content: space-between; font-size: .7rem; color: var(--muted); }
    polyline { fill: none; stroke: var(--accent); stroke-width: 1.6; stroke-linejoin: round; }
    polyline.s1 { stroke: var(--accent2); }
    line.grid { stroke: var(--grid); stroke-width: 1; stroke-dasharray: 3 3; }
    input, textarea { font: inherit; padding: .45rem .7rem; border-radius: .4rem;
      border: 1px solid var(--line); background: var(--bg); color: inherit; min-width: 0; }
    button { font: inherit; padding: .45rem .9rem; border: 0; border-radius: .4rem;
      background: var(--accent); color: #fff; cursor: pointer; }
    button.quiet { background: none; color: var(--accent); border: 1px solid var(--line); }
    button.danger { background: var(--bad); }
    button.small { padding: .2rem .6rem; font-size: .85rem; }
    button:disabled { opacity: .5; cursor: default; }
    .toolbar { display: flex; gap: .5rem; align-items: center; margin-bottom: .5rem; flex-wrap: wrap; }
    .toolbar input { flex: 1; }
    #login { min-height: 100vh; display: flex; align-items: center; justify-content: center; padding: 1rem; }
    #login form { background: var(--panel); border: 1px solid var(--line); padding: 1.25rem;
      border-radius: .8rem; width: 100%; max-width: 22rem; display: flex; flex-direction: column;
      gap: .75rem; box-shadow: 0 10px 30px rgba(0, 0, 0, .12); }
    #login h1 { font-size: 1.1rem; margin: 0; }
    .error { color: var(--bad); }
    .result { font: .85rem/1.4 ui-monospace, SFMono-Regular, Menlo, monospace; white-space: pre-wrap;
      overflow-wrap: anywhere; margin: .5rem 0 0; padding: .4rem .6rem; border-radius: .4rem;
      border: 1px solid var(--line); }
    .result[data-state="error"] { color: var(--bad); }
    .result:empty { display: none; }
    #messages { list-style: none; margin: 0; padding: 0; max-height: 22rem; overflow-y: auto;
      display: flex; flex-direction: column; gap: .25rem; }
    #messages li { overflow-wrap: anywhere; white-space: pre-wrap; }
    #messages .time { color: var(--muted); font-size: .8rem; margin-right: .4rem;
      font-variant-numeric: tabular-nums; }
    #messages .author { font-weight: 600; margin-right: .4rem; }
    #messages li.action .text { font-style: italic; }
    #publish-form { display: flex; gap: .5rem; flex-wrap: wrap; margin-top: .75rem; }
    #publish-text { flex: 3 1 12rem; }
    #publish-author { flex: 1 1 6rem; }
    dialog { border: 1px solid var(--line); border-radius: .8rem; background: var(--panel);
      color: var(--text); padding: 1.25rem; width: min(24rem, calc(100vw - 2rem)); }
    dialog::backdrop { background: rgba(0, 0, 0, .4); }
    dialog form { display: flex; flex-direction: column; gap: .75rem; }
    dialog p { margin: 0; overflow-wrap: anywhere; }
    /* Disconnect comes first in the form (Enter in the reason confirms), Cancel first on screen. */
    dialog .buttons { display: flex; flex-direction: row-reverse; gap: .5rem; justify-content: flex-start; }
    @media (max-width: 700px) {
      main { padding: .6rem; gap: .6rem; }
      section.card { padding: .6rem .7rem; }
      #transports { grid-template-columns: repeat(5, minmax(3.2rem, 1fr)); gap: .3rem; }
      #transports div { padding: .3rem .4rem; }
      #transports dd { font-size: 1.05rem; }
      #charts { grid-template-columns: 1fr; }
      .plot { height: 5.5rem; }
      th, td { padding: .3rem .35rem; }
      /* A member is a card: name and its button on one line, how it is connected below. */
      #members thead { display: none; }
      #members tr { display: flex; flex-wrap: wrap; align-items: center; column-gap: .6rem;
        padding: .35rem 0; border-bottom: 1px solid var(--line); }
      #members tbody tr:last-child { border-bottom: 0; }
      #members td { border: 0; padding: 0; }
      #members td:first-child { flex: 1; font-weight: 600; overflow: hidden; text-overflow: ellipsis; }
      #members td.act { order: 1; }
      #members tr::after { content: ""; order: 2; flex-basis: 100%; }
      #members td.transport, #members td.address, #members td.since, #members td.member-node {
        order: 3; font-size: .8rem; color: var(--muted); }
      #members td.since::before { content: "since "; }
      #members td.member-node::before { content: "on "; }
    }

    """#
}
