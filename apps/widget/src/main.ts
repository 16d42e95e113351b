import { ATTRIBUTES, KbAssistant, setDefaultServer } from './element.ts';

declare const __KB_WIDGET_VERSION__: string;

/**
 * The script a page embeds:
 *   <script src="https://kb.example.com/widget/v1/kb-assistant.js" data-key="kb_pub_…" defer></script>
 * defines <kb-assistant> and, given data-key, adds one to the page (its floating button) with the
 * script's other data-* attributes. Without data-key it only defines the element, for pages that
 * place <kb-assistant key="…"> themselves. The server is where the script came from.
 */
const script = document.currentScript as HTMLScriptElement | null;
const src = script?.src ?? '';
const at = src.indexOf('/widget/');
if (at > 0) setDefaultServer(src.slice(0, at));

if (!customElements.get('kb-assistant')) customElements.define('kb-assistant', KbAssistant);
(KbAssistant as unknown as { version: string }).version = __KB_WIDGET_VERSION__;

if (script?.dataset.key) {
  const element = document.createElement('kb-assistant');
  for (const name of ATTRIBUTES) {
    const value = script.getAttribute(`data-${name}`);
    if (value !== null) element.setAttribute(name, value);
  }
  const mount = () => document.body.append(element);
  if (document.body) mount();
  else document.addEventListener('DOMContentLoaded', mount, { once: true });
}
