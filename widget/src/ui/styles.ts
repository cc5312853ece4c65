/**
 * Styles shared by every widget, scoped by the shadow root: design tokens for both themes,
 * a reset that shields the widget from the host page (`:host { all: initial }`), buttons,
 * branding and rendered markdown. The accent comes from `--lore-accent` (set by applyTheme).
 */
export const BASE_CSS = `
:host{all:initial;--lore-accent:#2563eb;--bg:#fff;--bg2:#f4f5f7;--fg:#111827;--fg2:#4b5563;--line:#e5e7eb;--shadow:0 12px 40px rgba(0,0,0,.18);--radius:14px;
font:14px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,"Noto Sans","Helvetica Neue",Arial,sans-serif!important;color:var(--fg)!important;-webkit-font-smoothing:antialiased}
:host([data-theme=dark]){--bg:#16181d;--bg2:#23262d;--fg:#f3f4f6;--fg2:#a1a7b3;--line:#2f333b;--shadow:0 12px 40px rgba(0,0,0,.55)}
*,*::before,*::after{box-sizing:border-box}
[hidden]{display:none!important}
button,input,textarea{font:inherit;color:inherit}
button{cursor:pointer;border:0;background:none;padding:0}
:focus-visible{outline:2px solid var(--lore-accent);outline-offset:2px}
.icon{width:20px;height:20px;fill:none;stroke:currentColor;stroke-width:2;stroke-linecap:round;stroke-linejoin:round;flex:none}
.iconbtn{display:inline-flex;align-items:center;justify-content:center;width:34px;height:34px;border-radius:9px;color:var(--fg2)}
.iconbtn:hover{background:var(--bg2);color:var(--fg)}
.iconbtn[aria-pressed=true]{color:var(--lore-accent)}
.branding{font-size:11px;color:var(--fg2);text-align:center;padding:6px}
.branding a{color:inherit}
.sr{position:absolute;width:1px;height:1px;overflow:hidden;clip:rect(0 0 0 0);white-space:nowrap}
.md{overflow-wrap:anywhere}
.md>:first-child{margin-top:0}.md>:last-child{margin-bottom:0}
.md p,.md ul,.md ol,.md pre,.md blockquote,.md table{margin:0 0 .6em}
.md ul,.md ol{padding-left:1.3em}
.md a{color:var(--lore-accent)}
.md code{font:12.5px/1.45 ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;background:var(--bg2);border-radius:5px;padding:.1em .3em}
.md pre{background:var(--bg2);border-radius:8px;padding:10px;overflow:auto}
.md pre code{background:none;padding:0}
.md img{max-width:100%;border-radius:8px}
.md blockquote{border-left:3px solid var(--line);padding-left:10px;color:var(--fg2)}
.md table{border-collapse:collapse}.md th,.md td{border:1px solid var(--line);padding:3px 7px}
.cite{display:inline-block;min-width:16px;padding:0 4px;margin:0 1px;border-radius:6px;background:var(--bg2);color:var(--lore-accent);font-size:11px;line-height:16px;text-align:center;text-decoration:none;vertical-align:super}
mark{background:color-mix(in srgb,var(--lore-accent) 22%,transparent);color:inherit;border-radius:3px}
`;
