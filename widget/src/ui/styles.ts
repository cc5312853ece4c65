// The widgets' stylesheets, adopted by each shadow root as [BASE_CSS, CHAT_CSS] or
// [BASE_CSS, SEARCH_CSS] (widget/build.mjs minifies them). Kept together in one module, so they
// sit together in the bundle and compress better.

/** Chat styles over BASE_CSS: launcher, the three panel variants, thread, composer. */
export const CHAT_CSS = `
:host{display:block}
.launch,.me .bub,.go,.act{background:var(--lore-accent);color:#fff;color:lch(from var(--lore-accent) calc((63 - l)*100) 0 0)}
.launch{position:fixed;z-index:2147483000;right:20px;bottom:20px;width:56px;height:56px;border-radius:50%;display:grid;place-items:center;box-shadow:0 6px 24px rgba(0,0,0,.22);transition:transform .2s}
.launch:hover{transform:scale(1.06)}
.launch.left{right:auto;left:20px}
.launch .icon{grid-area:1/1;width:26px;height:26px;transition:transform .25s,opacity .2s}
.launch[aria-expanded=true]>:first-child,.launch[aria-expanded=false]>:last-child{opacity:0;transform:rotate(-60deg) scale(.5)}
.panel{display:flex;flex-direction:column;overflow:hidden;background:var(--bg);transition:opacity .2s,transform .25s cubic-bezier(.2,.8,.2,1)}
.bubble,.sidebar{position:fixed;z-index:2147483000}
.bubble{right:20px;bottom:88px;width:400px;height:min(640px,calc(100vh - 108px));border:1px solid var(--line);border-radius:16px;box-shadow:var(--shadow);transform-origin:100% 100%}
.bare{bottom:20px;height:min(640px,calc(100vh - 40px))}
.sidebar{top:0;bottom:0;right:0;width:var(--w);border-left:1px solid var(--line);box-shadow:0 0 32px rgba(0,0,0,.12)}
.sidebar.left{right:auto;left:0;border:0;border-right:1px solid var(--line)}
.inline{height:100%;min-height:400px;max-height:100vh;border:1px solid var(--line);border-radius:16px}
[data-open=false]{visibility:hidden;opacity:0;transform:translateY(12px) scale(.97);transition:opacity .2s,transform .25s,visibility 0s .25s}
.sidebar[data-open=false]{transform:translateX(100%)}.left[data-open=false]{transform:translateX(-100%)}
.head{display:flex;align-items:center;gap:10px;padding:12px 10px 12px 16px;border-bottom:1px solid var(--line)}
.av{width:32px;height:32px;border-radius:50%;object-fit:cover;flex:none;display:grid;place-items:center;background:color-mix(in srgb,var(--lore-accent) 14%,transparent);color:var(--lore-accent)}
.av .icon{width:17px;height:17px}
.name{flex:1;font-weight:600;font-size:15px;white-space:nowrap;overflow:hidden;text-overflow:ellipsis}
.thread{flex:1;overflow-y:auto;overscroll-behavior:contain;scrollbar-width:thin;padding:16px;display:flex;flex-direction:column;gap:14px}
.list{display:flex;flex-direction:column;gap:16px}
.list:empty,.chips:empty{display:none}
.msg{display:flex;flex-direction:column;align-items:flex-start;gap:8px;animation:in .25s ease-out}
.me{align-items:flex-end}
.bub,.wait{max-width:90%;padding:10px 14px;border-radius:16px 16px 16px 6px;background:var(--bg2)}
.me .bub{max-width:85%;border-radius:16px 16px 6px;white-space:pre-wrap;overflow-wrap:anywhere}
.bub:empty{display:none}
.md :is(h1,h2,h3,h4){font-size:1.05em;margin:.8em 0 .4em}
.bub .cite,.bub code{background:var(--bg)}
[data-state=streaming] .md>p:last-child::after{content:"▍";opacity:.5;animation:blink 1s steps(2) infinite}
.err{color:#e5484d}
.wait{display:flex;align-items:center;gap:4px;color:var(--fg2);font-size:13px}
.wait i{width:6px;height:6px;border-radius:50%;background:currentColor;animation:dot 1.2s infinite}
.wait i:nth-child(2){animation-delay:.15s}.wait i:nth-child(3){animation-delay:.3s}
.wait span{margin-left:6px}
.srcs{display:flex;flex-direction:column;gap:6px;width:90%}
.lbl{font-size:11px;font-weight:600;letter-spacing:.05em;text-transform:uppercase;color:var(--fg2)}
.cites,.imgs,.acts,.chips{display:flex;flex-wrap:wrap;gap:6px}
.src{display:flex;align-items:center;gap:6px;max-width:100%;padding:5px 10px 5px 7px;border:1px solid var(--line);border-radius:10px;background:var(--bg);color:var(--fg);font-size:12.5px;text-decoration:none}
.src:hover{border-color:var(--lore-accent)}
.src span{overflow:hidden;text-overflow:ellipsis;white-space:nowrap;font-weight:500}
[data-n]::before{content:attr(data-n);min-width:18px;height:18px;padding:0 4px;border-radius:6px;background:var(--bg2);color:var(--lore-accent);font-size:11px;font-weight:600;line-height:18px;text-align:center}
.src::after{content:attr(data-host);color:var(--fg2);font-size:11.5px;white-space:nowrap}
.hits{width:90%}
.cards{flex-direction:column}
.cards .src{display:grid;grid-template:auto auto/auto 1fr auto;gap:0;padding:8px 10px}
.cards .src::before{grid-area:1/3;margin-left:8px}.cards .src::after{grid-area:2/2}
.cards span{grid-area:1/2;white-space:normal}
.cards img{grid-area:1/1/3;width:44px;height:44px;margin-right:10px;border-radius:7px;object-fit:cover}
.imgs{flex-wrap:nowrap;overflow-x:auto;max-width:100%}
.imgs img{display:block;width:92px;height:64px;border-radius:8px;border:1px solid var(--line);object-fit:cover}
.act{padding:8px 14px;border-radius:10px;font-weight:600}
.src,.chip,.box,.go,.act{transition:.15s;transition-property:border-color,box-shadow,color,opacity}
.act:disabled{opacity:.5;cursor:default}
.fb{display:flex;align-items:center;margin:-4px 0 0 -4px;color:var(--fg2);font-size:12px}
.fb .iconbtn{width:28px;height:28px;border-radius:7px}.fb .icon{width:15px;height:15px}
.thx{margin-left:6px;animation:in .25s}
.chip{padding:7px 12px;border:1px solid var(--line);border-radius:999px;background:var(--bg);font-size:13px;text-align:left}
.chip:hover{border-color:var(--lore-accent);color:var(--lore-accent)}
.comp{padding:10px 12px 12px}
.box{display:flex;align-items:flex-end;gap:2px;padding:5px 5px 5px 14px;border:1px solid var(--line);border-radius:14px;background:var(--bg)}
.box:focus-within{border-color:var(--lore-accent);box-shadow:0 0 0 3px color-mix(in srgb,var(--lore-accent) 18%,transparent)}
.box textarea{flex:1;min-width:0;height:34px;max-height:120px;padding:7px 0;border:0;outline:0;resize:none;background:none;line-height:20px}
textarea::placeholder{color:var(--fg2)}
.go{width:34px;height:34px;border-radius:10px;display:grid;place-items:center;flex:none}
.go:disabled{opacity:.4;cursor:default}.go .icon{width:18px;height:18px}
.branding{padding:0 0 8px}
@keyframes dot{0%,80%,to{opacity:.3;transform:none}40%{opacity:1;transform:translateY(-3px)}}
@media (max-width:640px){.bubble{inset:0;width:auto;height:auto;border:0;border-radius:0}.launch[aria-expanded=true]{display:none}.sidebar{width:100vw}.box textarea{font-size:16px}}
`;

/** Search styles (DocSearch-like): launcher, modal (a top-layer <dialog>), inline panel, hits, summary. */
export const SEARCH_CSS = `
:host{display:contents!important}
.btn{display:inline-flex;align-items:center;gap:8px;height:40px;min-width:220px;padding:0 8px 0 12px;border:1px solid var(--line);border-radius:10px;background:var(--bg2);color:var(--fg2)}
.btn:hover{border-color:var(--lore-accent)}
.ph{flex:1;text-align:left}
kbd{padding:1px 5px;margin-left:4px;border:1px solid var(--line);border-bottom-width:2px;border-radius:5px;font:600 11px system-ui}
dialog{position:fixed;inset:0;z-index:2147483000;width:100%;height:100%;max-width:none;max-height:none;margin:0;padding:10vh 16px 16px;border:0;background:rgba(15,18,25,.45);color:var(--fg);overflow:hidden;overscroll-behavior:contain}
.box{display:flex;flex-direction:column;max-width:640px;max-height:80vh;margin:auto;background:var(--bg);border-radius:var(--radius);box-shadow:var(--shadow);overflow:hidden;animation:in .2s ease-out}
.head{display:flex;align-items:center;gap:6px;padding:12px}
.field{flex:1;display:flex;align-items:center;gap:6px;height:48px;padding:0 6px 0 12px;border-radius:10px;box-shadow:inset 0 0 0 2px var(--lore-accent);color:var(--lore-accent)}
.field input{flex:1;min-width:0;height:100%;border:0;outline:0;background:none;color:var(--fg);font-size:17px}
input::-webkit-search-cancel-button{display:none}
.body,.pane{padding:2px 12px 12px;background:var(--bg2)}
.body{flex:1;overflow:auto;overscroll-behavior:contain;border-top:1px solid var(--line)}
.pane{margin-top:8px;border:1px solid var(--line);border-radius:var(--radius)}
.inl .field:not(:focus-within){box-shadow:inset 0 0 0 1px var(--line)}
p{margin:0}
.status,.empty,.hit p,.foot{color:var(--fg2)}
.status{padding:12px 4px 0}
.empty{padding:28px 8px 16px;text-align:center}
ul{list-style:none;margin:0;padding:0}
.hit{position:relative;margin-top:8px;padding:10px 36px 10px 44px;border-radius:10px;background:var(--bg);box-shadow:0 1px 3px rgba(0,0,0,.1)}
.th{padding-left:76px;min-height:72px}
.hit>.icon{position:absolute;left:13px;top:12px;color:var(--fg2)}
.hit>.icon:last-child{left:auto;right:10px;top:calc(50% - 10px);opacity:0}
.hit:hover{box-shadow:inset 0 0 0 1px var(--lore-accent)}
.hit[aria-selected=true]{background:color-mix(in srgb,var(--lore-accent) 9%,var(--bg));box-shadow:inset 0 0 0 2px var(--lore-accent)}
.hit[aria-selected=true]>.icon{color:var(--lore-accent);opacity:1}
.hit a{display:block;color:var(--fg);font-weight:600;text-decoration:none;overflow:hidden;text-overflow:ellipsis;white-space:nowrap;outline:0}
.hit a::after{content:"";position:absolute;inset:0}
.hit:focus-within{outline:2px solid var(--lore-accent)}
.hit img{position:absolute;left:10px;top:10px;width:52px;height:52px;border-radius:8px;object-fit:cover}
.hit p{margin-top:2px;font-size:13px;display:-webkit-box;-webkit-line-clamp:2;-webkit-box-orient:vertical;overflow:hidden}
.sum{margin-top:10px;padding:12px 14px;border-radius:10px;background:var(--bg);border:1px solid color-mix(in srgb,var(--lore-accent) 40%,var(--line))}
.sum b{font-size:12px;color:var(--lore-accent);text-transform:uppercase;letter-spacing:.04em}
[data-state=streaming] .md>:last-child::after{content:"";display:inline-block;width:.45em;height:1em;margin-left:2px;vertical-align:-.15em;background:currentColor;opacity:.5;animation:blink 1s steps(2) infinite}
.foot{display:flex;align-items:center;padding:8px 12px;border-top:1px solid var(--line)}
.branding{margin-left:auto}
@media (max-width:640px){dialog{padding:0}.box{max-width:none;height:100%;max-height:none;border-radius:0}.keys,.foot.bare{display:none}}
@media (hover:none) and (pointer:coarse){.keys,.foot.bare,.hit>.icon:last-child{display:none}.hit:hover:not([aria-selected=true]){box-shadow:0 1px 3px rgba(0,0,0,.1)}}
`;

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
@keyframes in{from{opacity:0;transform:translateY(6px)}}
@keyframes blink{to{opacity:0}}
@media (prefers-reduced-motion:reduce){*,::before,::after{animation:none!important;transition:none!important}}
`;
