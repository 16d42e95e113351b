/**
 * The assistant's styles, adopted by its shadow root (constructable stylesheets: no <style>
 * element, so a page's CSP needs no 'unsafe-inline'). `:host` resets every property with
 * !important, which is the one way a shadow tree's rules beat the page's (`* { all: unset }`).
 * Sizes are in px, not rem: the page's root font size is not ours.
 */
export const STYLES = `
:host{all:initial!important;display:inline-block!important;position:static!important;visibility:visible!important}
:host([hidden]){display:none!important}
*,*::before,*::after{box-sizing:border-box}
[hidden]{display:none!important}
.root{--accent:#4f46e5;--on-accent:#fff;--bg:#fff;--fg:#111827;--muted:#4b5563;--line:#e5e7eb;--soft:#f3f4f6;--code:#f6f8fa;--danger:#b91c1c;--shadow:0 12px 40px rgba(0,0,0,.18);
font:15px/1.55 system-ui,-apple-system,"Segoe UI",Roboto,"Helvetica Neue",Arial,sans-serif;color:var(--fg);-webkit-font-smoothing:antialiased;text-align:left;letter-spacing:normal;direction:ltr}
.root.dark{--bg:#111827;--fg:#f3f4f6;--muted:#b6bcc6;--line:#374151;--soft:#1f2937;--code:#0b1220;--danger:#fca5a5;--shadow:0 12px 40px rgba(0,0,0,.6)}
button,input,textarea{font:inherit;color:inherit}
button{cursor:pointer;border:0;background:none;padding:0;margin:0}
button:disabled{cursor:default;opacity:.55}
:focus-visible{outline:2px solid var(--accent);outline-offset:2px}
.sr{position:absolute!important;width:1px;height:1px;overflow:hidden;clip:rect(0 0 0 0);white-space:nowrap;margin:-1px;padding:0;border:0}
svg{fill:none;stroke:currentColor;stroke-width:2;stroke-linecap:round;stroke-linejoin:round;flex:none}

.launcher{display:inline-flex;align-items:center;gap:8px;background:var(--accent);color:var(--on-accent);border-radius:999px;padding:10px 16px;font-weight:600;box-shadow:var(--shadow);transition:transform .15s}
.launcher:hover{transform:translateY(-1px)}
.launcher kbd{font-size:12px;line-height:1;font-family:inherit;opacity:.85;border:1px solid currentColor;border-radius:4px;padding:2px 4px}
.floating .launcher{position:fixed;bottom:20px;right:20px;z-index:2147483000}
.floating.left .launcher{right:auto;left:20px}

.backdrop{position:fixed;inset:0;background:rgba(0,0,0,.25);z-index:2147483001;animation:fade .15s}
.panel{position:fixed;z-index:2147483002;bottom:20px;right:20px;width:min(440px,calc(100vw - 40px));height:min(680px,calc(100vh - 40px));display:flex;flex-direction:column;background:var(--bg);color:var(--fg);border:1px solid var(--line);border-radius:14px;box-shadow:var(--shadow);overflow:hidden;animation:rise .18s ease-out}
.left .panel{right:auto;left:20px}
@keyframes rise{from{opacity:0;transform:translateY(12px)}to{opacity:1;transform:none}}
@keyframes fade{from{opacity:0}to{opacity:1}}

header{display:flex;align-items:center;gap:4px;padding:10px 10px 10px 16px;border-bottom:1px solid var(--line)}
header h2{flex:1;margin:0;font-size:16px;font-weight:650;display:flex;align-items:center;gap:8px;min-width:0}
header h2 span{overflow:hidden;text-overflow:ellipsis;white-space:nowrap}
header h2 svg{color:var(--accent)}
.icon{display:inline-flex;align-items:center;justify-content:center;width:34px;height:34px;border-radius:8px;color:var(--muted)}
.icon:hover{background:var(--soft);color:var(--fg)}

.scroll{flex:1;overflow-y:auto;padding:16px;overscroll-behavior:contain}
.welcome p{margin:0 0 12px;color:var(--muted)}
.examples{display:flex;flex-direction:column;gap:8px;margin:0;padding:0;list-style:none}
.examples button{width:100%;text-align:left;border:1px solid var(--line);border-radius:10px;padding:9px 12px;background:var(--bg)}
.examples button:hover{border-color:var(--accent);background:var(--soft)}

.msg{margin:0 0 18px}
.msg.user{display:flex;justify-content:flex-end}
.msg.user p{margin:0;background:var(--accent);color:var(--on-accent);padding:8px 12px;border-radius:14px 14px 4px 14px;max-width:85%;white-space:pre-wrap;overflow-wrap:anywhere}
.answer{overflow-wrap:anywhere}
.answer>:first-child{margin-top:0}
.answer p,.answer ul,.answer ol,.answer blockquote,.answer .table,.answer .code{margin:0 0 10px}
.answer ul,.answer ol{padding-left:22px}
.answer h3,.answer h4,.answer h5,.answer h6{margin:14px 0 6px;font-size:15px}
.answer h3{font-size:17px}
.answer a,.sources a{color:var(--accent);text-decoration:underline;text-underline-offset:2px}
.dark .answer a,.dark .sources a{color:#a5b4fc}
.answer code{font:13px/1.5 ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;background:var(--code);border-radius:4px;padding:1px 4px}
.answer pre{margin:0;overflow-x:auto;padding:12px;background:var(--code);border:1px solid var(--line);border-radius:8px}
.answer .code pre{border:0;border-radius:0}
.answer pre code{padding:0;background:none;white-space:pre}
.answer blockquote{border-left:3px solid var(--line);padding-left:10px;color:var(--muted)}
.answer hr{border:0;border-top:1px solid var(--line)}
.answer .table{overflow-x:auto}
.answer table{border-collapse:collapse;font-size:14px}
.answer th,.answer td{border:1px solid var(--line);padding:4px 8px}
.answer .align-center{text-align:center}.answer .align-right{text-align:right}
.code{border:1px solid var(--line);border-radius:8px;overflow:hidden;background:var(--code)}
.code .bar{display:flex;justify-content:flex-end;padding:3px 4px;border-bottom:1px solid var(--line);background:var(--soft)}
.copy{display:inline-flex;gap:4px;align-items:center;font-size:12px;padding:3px 8px;border-radius:6px;color:var(--muted)}
.copy:hover{color:var(--fg)}
.typing::after{content:"";display:inline-block;width:8px;height:15px;margin-left:2px;vertical-align:-2px;background:var(--accent);animation:blink 1s steps(2) infinite}
@keyframes blink{50%{opacity:0}}

.sources{margin:6px 0 8px;padding:10px 12px;border:1px solid var(--line);border-radius:10px}
.sources h3{margin:0 0 4px;font-size:12px;text-transform:uppercase;letter-spacing:.04em;color:var(--muted)}
.sources ol{margin:0;padding-left:20px;font-size:14px}
.sources li{margin:2px 0}
.sources .section{display:block;font-size:13px;color:var(--muted)}

.note{font-size:13px;color:var(--muted);margin:4px 0}
.error{color:var(--danger);font-size:14px;margin:6px 0;display:flex;flex-wrap:wrap;align-items:center;gap:8px}
.error[role=alert]{margin:0 0 14px;padding:10px 12px;border:1px solid currentColor;border-radius:10px;font-size:15px}
.pill{border:1px solid var(--line);border-radius:999px;padding:4px 12px;font-size:13px;background:var(--bg);color:var(--fg)}
.pill:hover:not(:disabled){border-color:var(--accent)}

.feedback{display:flex;align-items:center;gap:6px;color:var(--muted);font-size:13px}
.vote{display:inline-flex;align-items:center;gap:5px;border:1px solid var(--line);border-radius:999px;padding:4px 10px;font-size:13px;color:var(--muted);background:var(--bg)}
.vote:hover{color:var(--fg);border-color:var(--accent)}
.vote[aria-pressed=true]{color:var(--accent);border-color:var(--accent);background:var(--soft)}
.feedback .thanks{margin-left:6px}
.reasons{margin:8px 0 0;padding:12px;border:1px solid var(--line);border-radius:10px;background:var(--soft)}
.reasons fieldset{border:0;margin:0;padding:0}
.reasons legend{font-weight:600;font-size:14px;margin:0 0 6px;padding:0}
.reasons label{display:flex;align-items:center;gap:8px;font-size:14px;margin:3px 0;cursor:pointer}
.reasons input[type=checkbox]{appearance:auto;width:16px;height:16px;margin:0;accent-color:var(--accent)}
.reasons .field{display:block;margin-top:8px;font-size:14px}
.reasons textarea{display:block;width:100%;margin-top:4px;min-height:64px;resize:vertical;padding:8px;border:1px solid var(--line);border-radius:8px;background:var(--bg)}
.reasons .row{display:flex;gap:8px;justify-content:flex-end;margin-top:8px;align-items:center}
.count{font-size:12px;color:var(--muted);margin-right:auto}
.primary{background:var(--accent);color:var(--on-accent);border-radius:8px;padding:6px 14px;font-weight:600}

.history h3{margin:0 0 10px;font-size:15px}
.history ul{list-style:none;margin:0 0 14px;padding:0}
.history li button{width:100%;text-align:left;padding:9px 10px;border-radius:8px;display:block;overflow:hidden;text-overflow:ellipsis;white-space:nowrap}
.history li button:hover{background:var(--soft)}
.history time{display:block;font-size:12px;color:var(--muted)}

form.ask{display:flex;gap:8px;align-items:flex-end;padding:10px 12px;border-top:1px solid var(--line)}
form.ask textarea{flex:1;resize:none;max-height:140px;min-height:42px;padding:10px 12px;border:1px solid var(--line);border-radius:10px;background:var(--bg);line-height:1.4}
form.ask textarea:focus{outline:none;border-color:var(--accent);box-shadow:0 0 0 2px color-mix(in srgb,var(--accent) 30%,transparent)}
form.ask .go{width:42px;height:42px;border-radius:10px;background:var(--accent);color:var(--on-accent);display:inline-flex;align-items:center;justify-content:center}
.foot{padding:0 12px 8px;font-size:11px;color:var(--muted);text-align:center}
.challenge{padding:12px 16px;border-top:1px solid var(--line);font-size:14px;color:var(--muted)}

@media (max-width:640px){
  .panel,.left .panel{inset:0;width:100%;height:100%;max-height:none;border-radius:0;border:0}
  .backdrop{display:none}
  .floating .launcher{bottom:16px;right:16px}
  .floating.left .launcher{left:16px}
  .launcher kbd{display:none}
}
@media (prefers-reduced-motion:reduce){
  *,*::before,*::after{animation:none!important;transition:none!important}
}
@media (forced-colors:active){
  .launcher,.primary,form.ask .go{border:1px solid ButtonText}
}
`;
