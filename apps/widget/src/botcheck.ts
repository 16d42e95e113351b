/**
 * The optional bot check (Cloudflare Turnstile or hCaptcha): the provider's script is loaded only
 * when the key's configuration names one, and renders its challenge into `container`, an element
 * of the host page's own DOM (slotted into the panel), where the provider's frame expects to be.
 */

export type BotCheckProvider = 'turnstile' | 'hcaptcha';

/** The providers' script addresses (docs/assistant.md lists the CSP entries they need). */
export const PROVIDER_SCRIPTS: Record<BotCheckProvider, { src: string; global: string }> = {
  turnstile: { src: 'https://challenges.cloudflare.com/turnstile/v0/api.js?render=explicit', global: 'turnstile' },
  hcaptcha: { src: 'https://js.hcaptcha.com/1/api.js?render=explicit&recaptchacompat=off', global: 'hcaptcha' },
};

interface ProviderApi {
  render(container: HTMLElement, options: Record<string, unknown>): string | number;
  reset?(id?: string | number): void;
  remove?(id?: string | number): void;
}

const loading = new Map<BotCheckProvider, Promise<ProviderApi>>();

function loadProvider(provider: BotCheckProvider): Promise<ProviderApi> {
  let promise = loading.get(provider);
  if (!promise) {
    const { src, global } = PROVIDER_SCRIPTS[provider];
    promise = new Promise<ProviderApi>((resolve, reject) => {
      const existing = (window as unknown as Record<string, ProviderApi | undefined>)[global];
      if (existing) return resolve(existing);
      const script = document.createElement('script');
      script.src = src;
      script.async = true;
      script.addEventListener('load', () => {
        const api = (window as unknown as Record<string, ProviderApi | undefined>)[global];
        if (api) resolve(api);
        else reject(new Error(`The bot check (${provider}) did not start`));
      });
      script.addEventListener('error', () => reject(new Error(`The bot check (${provider}) could not be loaded: is ${new URL(src).origin} allowed by the page's Content-Security-Policy?`)));
      document.head.append(script);
    });
    // A failed load may be tried again later.
    promise.catch(() => loading.delete(provider));
    loading.set(provider, promise);
  }
  return promise;
}

/** Shows the provider's challenge in `container` and resolves with its token once the visitor passes it. */
export async function runBotCheck(provider: BotCheckProvider, siteKey: string, container: HTMLElement, theme: 'light' | 'dark'): Promise<string> {
  const api = await loadProvider(provider);
  container.replaceChildren();
  const target = document.createElement('div');
  container.append(target);
  return new Promise<string>((resolve, reject) => {
    api.render(target, {
      sitekey: siteKey,
      theme,
      callback: (token: string) => resolve(token),
      'error-callback': () => reject(new Error('The bot check failed: reload the page to try again')),
      'expired-callback': () => reject(new Error('The bot check expired: try again')),
    });
  });
}
