import { AssistantApi, describeError, FEEDBACK_REASONS, formatWait, type AssistantConfig, type Conversation, type FeedbackReason, type Source } from './api.ts';
import { runBotCheck } from './botcheck.ts';
import { h, icon, ICONS, renderMarkdown } from './dom.ts';
import { History, titleOf, type StoredMessage, type StoredSource, type Vote } from './history.ts';
import { parseMarkdown } from './markdown.ts';
import { STYLES } from './styles.ts';

/** Every attribute the element reads; the script tag takes each as `data-<name>`. */
export const ATTRIBUTES = ['key', 'server', 'heading', 'welcome', 'examples', 'placeholder', 'accent', 'theme', 'position', 'shortcut', 'namespaces', 'history', 'launcher', 'label'] as const;

const REASON_LABELS: Record<FeedbackReason, string> = {
  incorrect: 'Incorrect',
  incomplete: 'Incomplete',
  not_what_i_asked: 'Not what I asked',
  outdated: 'Outdated',
  other: 'Other',
};

export const MAX_NOTE_CHARS = 1_000;
const FOCUSABLE = 'button:not([disabled]),textarea:not([disabled]),input:not([disabled]),a[href],[tabindex]:not([tabindex="-1"])';

let sharedSheet: CSSStyleSheet | undefined;
let defaultServer = '';

/** The server the element talks to when it has no `server` attribute: where this script came from. */
export function setDefaultServer(server: string): void {
  defaultServer = server;
}

const isMac = () => /Mac|iPhone|iPad/.test(navigator.platform || navigator.userAgent);

interface Shortcut {
  key: string;
  ctrl: boolean;
  meta: boolean;
  alt: boolean;
  shift: boolean;
  label: string;
}

/** "mod+i" (Ctrl, or ⌘ on a Mac), "ctrl+shift+k", "alt+a"; "none" or nothing valid: no shortcut. */
export function parseShortcut(value: string | null): Shortcut | undefined {
  const parts = (value ?? 'mod+i').toLowerCase().split('+').map((part) => part.trim()).filter(Boolean);
  const key = parts.pop();
  if (!key || key === 'none' || key.length !== 1) return undefined;
  const mac = isMac();
  const has = (name: string) => parts.includes(name);
  const shortcut = { key, ctrl: has('ctrl') || (has('mod') && !mac), meta: has('meta') || has('cmd') || (has('mod') && mac), alt: has('alt') || has('option'), shift: has('shift'), label: '' };
  shortcut.label = [shortcut.ctrl && 'Ctrl', shortcut.meta && (mac ? '⌘' : 'Meta'), shortcut.alt && (mac ? '⌥' : 'Alt'), shortcut.shift && 'Shift', key.toUpperCase()].filter(Boolean).join(mac ? '' : '+');
  return shortcut;
}

interface Turn {
  question: string;
  /** The question as shown: where the view scrolls to when its answer comes. */
  asked: HTMLElement;
  answer: string;
  sources: Source[];
  messageId?: string;
  vote?: Vote;
  interrupted?: boolean;
  view: AnswerView;
}

/**
 * <kb-assistant>: the "Ask AI" button and the chat dialog it opens, in an open shadow root.
 * Attributes are listed in ATTRIBUTES and described in docs/assistant.md.
 */
export class KbAssistant extends HTMLElement {
  static observedAttributes = [...ATTRIBUTES];

  readonly #root: ShadowRoot;
  #api: AssistantApi | undefined;
  #config: Promise<AssistantConfig> | undefined;
  #configError: string | undefined;
  #history: History | undefined;
  #built = false;
  #open = false;
  #returnFocus: Element | null = null;
  #conversationId: string | undefined;
  #turns: Turn[] = [];
  #stream: AbortController | undefined;
  #shortcut: Shortcut | undefined;
  #theme = new CSSStyleSheet();
  #media = matchMedia('(prefers-color-scheme: dark)');
  #botCheck: Promise<void> | undefined;
  /** Counts conversations opened from the history, so that a late answer for an earlier one is dropped. */
  #opening = 0;

  // Parts of the dialog.
  #wrapper!: HTMLDivElement;
  #launcher!: HTMLButtonElement;
  #backdrop!: HTMLDivElement;
  #panel!: HTMLDivElement;
  #title!: HTMLSpanElement;
  #scroll!: HTMLDivElement;
  #messages!: HTMLDivElement;
  #welcome!: HTMLDivElement;
  #historyView!: HTMLDivElement;
  #historyButton!: HTMLButtonElement;
  #form!: HTMLFormElement;
  #input!: HTMLTextAreaElement;
  #go!: HTMLButtonElement;
  #live!: HTMLDivElement;
  #notice!: HTMLDivElement;
  #challenge!: HTMLDivElement;
  #foot!: HTMLParagraphElement;
  /** Example questions from the FAQ, fetched once, the first time the dialog opens. */
  #suggested: Promise<void> | undefined;
  #suggestions: string[] = [];
  /** Where the view was scrolled to show the latest question; a reader who scrolls elsewhere is left there. */
  #pinnedAt: number | undefined;

  constructor() {
    super();
    this.#root = this.attachShadow({ mode: 'open' });
    if (!sharedSheet) {
      sharedSheet = new CSSStyleSheet();
      sharedSheet.replaceSync(STYLES);
    }
    this.#root.adoptedStyleSheets = [sharedSheet, this.#theme];
  }

  connectedCallback(): void {
    if (!this.#built) this.#build();
    this.#apply();
    this.#connect();
    document.addEventListener('keydown', this.#onShortcut, true);
    this.#media.addEventListener('change', this.#onScheme);
  }

  disconnectedCallback(): void {
    document.removeEventListener('keydown', this.#onShortcut, true);
    this.#media.removeEventListener('change', this.#onScheme);
    this.#stream?.abort();
  }

  attributeChangedCallback(name: string, previous: string | null, value: string | null): void {
    if (!this.#built || previous === value) return;
    this.#apply();
    if (name === 'key' || name === 'server' || name === 'history') {
      this.#api = undefined;
      this.#connect();
    }
  }

  /** Opens the dialog (what the button and the shortcut do). */
  open(): void {
    if (this.#open) return;
    this.#open = true;
    this.#returnFocus = (document.activeElement as Element | null) ?? null;
    this.#panel.hidden = false;
    this.#backdrop.hidden = false;
    this.#launcher.setAttribute('aria-expanded', 'true');
    this.#showChat();
    this.#input.focus();
    void this.#suggest();
    this.dispatchEvent(new CustomEvent('kb-assistant-open', { bubbles: true, composed: true }));
  }

  /** Closes the dialog; an answer being written goes on. */
  close(): void {
    if (!this.#open) return;
    this.#open = false;
    this.#panel.hidden = true;
    this.#backdrop.hidden = true;
    this.#launcher.setAttribute('aria-expanded', 'false');
    const target = this.#returnFocus instanceof HTMLElement && this.#returnFocus !== this ? this.#returnFocus : this.#launcher;
    if (target.isConnected && target.offsetParent !== null) target.focus();
    else this.#launcher.focus();
  }

  toggle(): void {
    if (this.#open) this.close();
    else this.open();
  }

  /** Asks a question as if it had been typed. */
  ask(question: string): void {
    this.open();
    void this.#ask(question.trim());
  }

  // --- set-up ---------------------------------------------------------------------------------

  #attr(name: (typeof ATTRIBUTES)[number]): string | undefined {
    const value = this.getAttribute(name)?.trim();
    return value ? value : undefined;
  }

  #connect(): void {
    const key = this.#attr('key');
    const server = (this.#attr('server') ?? defaultServer).replace(/\/+$/, '');
    if (!key) {
      this.#configError = 'This assistant has no key: set the key attribute (data-key on the script tag).';
      this.#setNotice(this.#configError);
      return;
    }
    this.#input.disabled = false;
    this.#go.disabled = false;
    if (this.#api && this.#api.key === key && this.#api.server === server) return;
    this.#api = new AssistantApi(server, key);
    this.#configError = undefined;
    this.#history = this.#attr('history') === 'off' ? undefined : new History(safeLocalStorage(), `kb-assistant:${key}`);
    this.#historyButton.hidden = !this.#history;
    this.#config = this.#api.config();
    this.#suggested = undefined;
    this.#suggestions = [];
    this.#config.then(
      (config) => {
        this.#setNotice(undefined);
        this.#foot.textContent = disclaimer(config.answerer);
      },
      (error: unknown) => {
        const problem = describeError(error);
        if (problem.kind === 'forbidden' || problem.kind === 'key') {
          // Nothing this page can ask will be answered: say so, and offer no question box.
          this.#configError = problem.message;
          this.#setNotice(problem.message);
          this.#input.disabled = true;
          this.#go.disabled = true;
          this.#welcome.hidden = true;
        } else {
          // Unreachable or refused for a while: the next question tries again.
          this.#api = undefined;
        }
      },
    );
  }

  #build(): void {
    this.#built = true;
    this.#launcher = h('button', { type: 'button', class: 'launcher', part: 'launcher', 'aria-haspopup': 'dialog', 'aria-expanded': 'false', onClick: () => this.toggle() });
    this.#backdrop = h('div', { class: 'backdrop', hidden: true, onClick: () => this.close() });
    this.#title = h('span', { id: 'kb-title' });
    this.#historyButton = h('button', { type: 'button', class: 'icon', 'aria-label': 'Earlier conversations', title: 'Earlier conversations', onClick: () => this.#showHistory() }, icon(ICONS.history));
    const header = h(
      'header',
      {},
      h('h2', {}, icon(ICONS.spark), this.#title),
      this.#historyButton,
      h('button', { type: 'button', class: 'icon', 'aria-label': 'New conversation', title: 'New conversation', onClick: () => this.#newConversation() }, icon(ICONS.plus)),
      h('button', { type: 'button', class: 'icon', 'aria-label': 'Close', title: 'Close (Esc)', onClick: () => this.close() }, icon(ICONS.close)),
    );
    this.#welcome = h('div', { class: 'welcome' });
    this.#messages = h('div', { class: 'messages' });
    this.#notice = h('div', { class: 'error', role: 'alert', hidden: true });
    this.#historyView = h('div', { class: 'history', hidden: true });
    this.#scroll = h('div', { class: 'scroll' }, this.#notice, this.#welcome, this.#messages, this.#historyView);
    this.#input = h('textarea', { id: 'kb-question', rows: 1, maxlength: 10_000, autocomplete: 'off', onKeydown: (event: KeyboardEvent) => this.#onInputKey(event), onInput: () => this.#fit() });
    this.#go = h('button', { type: 'submit', class: 'go' });
    this.#form = h(
      'form',
      { class: 'ask', onSubmit: (event: SubmitEvent) => this.#onSubmit(event) },
      h('label', { class: 'sr', for: 'kb-question' }, 'Your question'),
      this.#input,
      this.#go,
    );
    // The bot check's frame lives in the page's own DOM (the provider's script looks for it there), shown here through a slot.
    this.#challenge = h('div', { class: 'challenge', hidden: true }, h('p', {}, 'One moment: checking that you are not a bot.'), document.createElement('slot'));
    this.#challenge.querySelector('slot')!.name = 'challenge';
    this.#live = h('div', { id: 'kb-live', class: 'sr', role: 'status', 'aria-live': 'polite', 'aria-atomic': 'true' });
    this.#panel = h(
      'div',
      { class: 'panel', role: 'dialog', 'aria-modal': 'true', 'aria-labelledby': 'kb-title', hidden: true, onKeydown: (event: KeyboardEvent) => this.#onPanelKey(event) },
      header,
      this.#scroll,
      this.#challenge,
      this.#form,
      (this.#foot = h('p', { class: 'foot' }, disclaimer(undefined))),
      this.#live,
    );
    this.#wrapper = h('div', { class: 'root' }, this.#launcher, this.#backdrop, this.#panel);
    this.#root.append(this.#wrapper);
    this.#setBusy(false);
  }

  /** Applies the presentational attributes. */
  #apply(): void {
    const floating = (this.#attr('launcher') ?? 'floating') === 'floating';
    this.#wrapper.className = ['root', floating && 'floating', this.#attr('position') === 'bottom-left' && 'left', this.#dark() && 'dark'].filter(Boolean).join(' ');
    this.#launcher.hidden = this.#attr('launcher') === 'none';
    this.#shortcut = parseShortcut(this.getAttribute('shortcut'));
    const label = this.#attr('label') ?? 'Ask AI';
    this.#launcher.replaceChildren(icon(ICONS.spark), h('span', {}, label), ...(this.#shortcut ? [h('kbd', { 'aria-hidden': 'true' }, this.#shortcut.label)] : []));
    if (this.#shortcut) this.#launcher.setAttribute('aria-keyshortcuts', `${this.#shortcut.ctrl ? 'Control+' : ''}${this.#shortcut.meta ? 'Meta+' : ''}${this.#shortcut.alt ? 'Alt+' : ''}${this.#shortcut.shift ? 'Shift+' : ''}${this.#shortcut.key.toUpperCase()}`);
    else this.#launcher.removeAttribute('aria-keyshortcuts');
    this.#title.textContent = this.#attr('heading') ?? 'Ask the docs';
    this.#input.placeholder = this.#attr('placeholder') ?? 'Ask a question…';
    const accent = this.#attr('accent');
    const valid = accent !== undefined && isColor(accent);
    this.#theme.replaceSync(valid ? `.root{--accent:${accent};--on-accent:${readableOn(accent)}}` : '');
    this.#renderWelcome();
  }

  #dark(): boolean {
    const theme = this.#attr('theme') ?? 'auto';
    return theme === 'dark' || (theme === 'auto' && this.#media.matches);
  }

  #onScheme = () => this.#apply();

  #onShortcut = (event: KeyboardEvent) => {
    const shortcut = this.#shortcut;
    if (!shortcut || event.key.toLowerCase() !== shortcut.key) return;
    if (event.ctrlKey !== shortcut.ctrl || event.metaKey !== shortcut.meta || event.altKey !== shortcut.alt || event.shiftKey !== shortcut.shift) return;
    event.preventDefault();
    this.toggle();
  };

  // --- keyboard -------------------------------------------------------------------------------

  #onPanelKey(event: KeyboardEvent): void {
    if (event.key === 'Escape') {
      event.preventDefault();
      event.stopPropagation();
      this.close();
      return;
    }
    if (event.key !== 'Tab') return;
    // The focus stays in the dialog: Tab from the last control goes to the first, Shift+Tab back.
    const focusable = [...this.#panel.querySelectorAll<HTMLElement>(FOCUSABLE)].filter((element) => element.getClientRects().length > 0);
    const first = focusable[0];
    const last = focusable.at(-1);
    const active = this.#root.activeElement;
    if (!first || !last) return;
    if (event.shiftKey && (active === first || !this.#panel.contains(active))) {
      event.preventDefault();
      last.focus();
    } else if (!event.shiftKey && (active === last || !this.#panel.contains(active))) {
      event.preventDefault();
      first.focus();
    }
  }

  #onInputKey(event: KeyboardEvent): void {
    if (event.key === 'Enter' && !event.shiftKey && !event.isComposing) {
      event.preventDefault();
      this.#form.requestSubmit();
    }
  }

  #fit(): void {
    this.#input.style.height = 'auto';
    this.#input.style.height = `${Math.min(this.#input.scrollHeight + 2, 140)}px`;
  }

  #onSubmit(event: SubmitEvent): void {
    event.preventDefault();
    if (this.#stream) {
      this.#stream.abort(new DOMException('Stopped', 'AbortError'));
      return;
    }
    const question = this.#input.value.trim();
    if (!question) return;
    this.#input.value = '';
    this.#fit();
    void this.#ask(question);
  }

  #setBusy(busy: boolean): void {
    this.#go.replaceChildren(icon(busy ? ICONS.stop : ICONS.send));
    this.#go.setAttribute('aria-label', busy ? 'Stop answering' : 'Send');
    this.#go.title = busy ? 'Stop answering' : 'Send (Enter)';
  }

  // --- views ----------------------------------------------------------------------------------

  #setNotice(message: string | undefined): void {
    this.#notice.hidden = message === undefined;
    this.#notice.textContent = message ?? '';
  }

  #renderWelcome(): void {
    const given = this.#givenExamples();
    const examples = given ?? this.#suggestions;
    this.#welcome.replaceChildren(h('p', {}, this.#attr('welcome') ?? 'Ask anything about the documentation. Answers cite the pages they come from.'));
    if (examples.length > 0) {
      this.#welcome.append(h('ul', { class: 'examples', 'aria-label': 'Example questions' }, ...examples.map((text) => h('li', {}, h('button', { type: 'button', onClick: () => void this.#ask(text) }, text)))));
    }
    this.#welcome.hidden = this.#turns.length > 0;
  }

  /** The page's own example questions (`examples`), none when it says `none`; undefined: not given, so the FAQ's are used. */
  #givenExamples(): string[] | undefined {
    const attribute = this.#attr('examples');
    if (attribute === undefined) return undefined;
    if (attribute.toLowerCase() === 'none') return [];
    return attribute.split('|').map((text) => text.trim()).filter(Boolean).slice(0, 6);
  }

  /**
   * Example questions for a new reader when the page gives none: the questions of the FAQ about
   * the page's own topic (its main heading, else its title), which the server keeps cached. Quietly
   * none when the FAQ has nothing or refuses (its limits, a bot check not yet passed).
   */
  #suggest(): Promise<void> {
    if (this.#givenExamples() !== undefined || this.#turns.length > 0 || !this.#api || !this.#config) return Promise.resolve();
    const api = this.#api;
    this.#suggested ??= (async () => {
      try {
        const config = await this.#config!;
        const topic = pageTopic();
        if (!topic || (config.botCheck && !api.visitorToken)) return;
        const readable = this.#namespaces(config) ?? config.namespaces;
        const source = readable.includes('user_docs') ? 'user_docs' : readable[0];
        if (!source) return;
        const faq = await api.faq(topic, source);
        if (api !== this.#api) return;
        this.#suggestions = faqQuestions(faq.content).slice(0, 4);
        this.#renderWelcome();
      } catch {
        // No examples: the reader can still ask.
      }
    })();
    return this.#suggested;
  }

  #showChat(): void {
    this.#historyView.hidden = true;
    this.#messages.hidden = false;
    this.#welcome.hidden = this.#turns.length > 0 || this.#configError !== undefined;
    this.#form.hidden = false;
  }

  #showHistory(): void {
    const history = this.#history;
    if (!history) return;
    const conversations = history.list();
    this.#messages.hidden = true;
    this.#welcome.hidden = true;
    this.#form.hidden = true;
    const back = h('button', { type: 'button', class: 'pill', onClick: () => (this.#showChat(), this.#input.focus()) }, 'Back to the conversation');
    const clear = h(
      'button',
      {
        type: 'button',
        class: 'pill',
        onClick: () => {
          history.clear();
          this.#showHistory();
          this.#announce('Conversation history cleared.');
        },
      },
      'Clear history',
    );
    this.#historyView.replaceChildren(
      h('h3', {}, 'Earlier conversations'),
      conversations.length === 0
        ? h('p', { class: 'note' }, 'No earlier conversations on this device.')
        : h(
            'ul',
            {},
            ...conversations.map((conversation) =>
              h(
                'li',
                {},
                h(
                  'button',
                  { type: 'button', onClick: () => void this.#openConversation(conversation.id) },
                  conversation.title,
                  h('time', { datetime: new Date(conversation.updatedAt).toISOString() }, new Date(conversation.updatedAt).toLocaleString()),
                ),
              ),
            ),
          ),
      h('p', { class: 'note' }, 'Kept in this browser only (at most 20 conversations).'),
      h('div', { class: 'row' }, back, ' ', conversations.length > 0 ? clear : null),
    );
    this.#historyView.hidden = false;
    back.focus();
  }

  #newConversation(): void {
    this.#opening++;
    this.#stream?.abort(new DOMException('Stopped', 'AbortError'));
    this.#conversationId = undefined;
    this.#turns = [];
    this.#messages.replaceChildren();
    this.#showChat();
    this.#input.focus();
  }

  /** Shows a stored conversation at once from this browser's copy, then from the server's. */
  async #openConversation(id: string): Promise<void> {
    this.#newConversation();
    const opening = ++this.#opening;
    const stored = this.#history?.get(id);
    if (stored) this.#showMessages(id, stored.messages);
    try {
      const conversation: Conversation = await this.#api!.conversation(id);
      // Another conversation was opened or started meanwhile.
      if (opening !== this.#opening || this.#stream || (this.#conversationId ?? id) !== id) return;
      this.#turns = [];
      this.#messages.replaceChildren();
      this.#showMessages(
        id,
        conversation.messages.map((message) => ({
          role: message.role,
          content: message.content,
          id: message.id,
          sources: message.sources.map(storedSource),
          ...(message.interrupted ? { interrupted: true } : {}),
          ...(message.feedback ? { vote: { rating: message.feedback.rating, ...(message.feedback.reasons ? { reasons: message.feedback.reasons } : {}), ...(message.feedback.note ? { note: message.feedback.note } : {}) } } : {}),
        })),
      );
      this.#remember();
    } catch (error) {
      const problem = describeError(error);
      if ((error as { status?: number }).status === 404) {
        this.#history?.remove(id);
        if (!stored) this.#setNotice('That conversation is no longer available.');
      } else if (!stored) {
        this.#setNotice(problem.message);
      }
    }
  }

  #showMessages(id: string, messages: StoredMessage[]): void {
    this.#conversationId = id;
    for (let i = 0; i < messages.length; i++) {
      const message = messages[i]!;
      if (message.role !== 'user') continue;
      const reply = messages[i + 1]?.role === 'assistant' ? messages[i + 1] : undefined;
      const turn = this.#addTurn(message.content);
      if (reply) {
        turn.answer = reply.content;
        turn.sources = (reply.sources ?? []).map((source) => ({ title: source.title, documentId: '', slug: '', namespace: '', ...(source.url ? { url: source.url } : {}), ...(source.anchor ? { anchor: source.anchor } : {}), ...(source.section ? { section: source.section } : {}) }));
        if (reply.id) turn.messageId = reply.id;
        if (reply.vote) turn.vote = reply.vote;
        if (reply.interrupted) turn.interrupted = true;
      }
      turn.view.finish(turn);
    }
    this.#welcome.hidden = this.#turns.length > 0;
    const last = this.#turns.at(-1);
    if (last) this.#showQuestion(last, true);
  }

  #addTurn(question: string): Turn {
    const view = new AnswerView(this);
    const asked = h('div', { class: 'msg user' }, h('p', {}, h('span', { class: 'sr' }, 'You asked: '), question));
    const turn: Turn = { question, asked, answer: '', sources: [], view };
    this.#turns.push(turn);
    this.#welcome.hidden = true;
    this.#messages.append(asked, view.element);
    return turn;
  }

  // --- asking ---------------------------------------------------------------------------------

  async #ask(question: string, retrying?: Turn): Promise<void> {
    if (!question || this.#stream) return;
    this.#showChat();
    this.#setNotice(undefined);
    if (!this.#api) this.#connect();
    if (this.#configError) return this.#setNotice(this.#configError);
    const api = this.#api!;
    const turn = retrying ?? this.#addTurn(question);
    turn.view.start();
    this.#showQuestion(turn, true);
    const controller = new AbortController();
    this.#stream = controller;
    this.#setBusy(true);
    try {
      const config = await this.#config!;
      if (config.botCheck && !api.visitorToken) await this.#passBotCheck(config);
      const namespaces = this.#namespaces(config);
      const stream = await api.chat(
        { message: question, ...(this.#conversationId ? { conversationId: this.#conversationId } : {}), ...(namespaces ? { source: namespaces } : {}) },
        controller.signal,
      );
      for await (const event of stream) {
        if (event.type === 'meta') {
          this.#conversationId = event.conversationId;
          const meta = event as typeof event & { messageId?: string };
          if (meta.messageId) turn.messageId = meta.messageId;
          turn.sources = event.sources;
        } else if (event.type === 'chunk') {
          turn.answer += event.text;
          turn.view.update(turn.answer);
        } else {
          turn.view.fail(event.message, () => this.#retry(turn));
        }
      }
      turn.view.finish(turn);
      this.#showQuestion(turn, false);
      this.#announce(`Answer: ${turn.view.text()}`);
    } catch (error) {
      if (controller.signal.aborted) {
        turn.interrupted = true;
        turn.view.finish(turn);
        turn.view.note('Stopped.');
        this.#announce('Stopped.');
      } else {
        const problem = describeError(error);
        if (problem.kind === 'bot' && this.#api) this.#api.visitorToken = undefined;
        turn.view.finish(turn);
        turn.view.fail(problem.message, () => this.#retry(turn), problem.retryAfter);
        this.#announce(problem.message);
      }
    } finally {
      if (this.#stream === controller) this.#stream = undefined;
      this.#setBusy(false);
      this.#remember();
    }
  }

  #retry(turn: Turn): void {
    turn.answer = '';
    turn.sources = [];
    delete turn.messageId;
    delete turn.vote;
    delete turn.interrupted;
    void this.#ask(turn.question, turn);
  }

  /** The namespaces to ask: the attribute's, within the key's. */
  #namespaces(config: AssistantConfig): string[] | undefined {
    const wanted = (this.#attr('namespaces') ?? '').split(/[\s,]+/).filter(Boolean);
    if (wanted.length === 0) return undefined;
    const allowed = wanted.filter((namespace) => config.namespaces.includes(namespace));
    return allowed.length > 0 ? allowed : undefined;
  }

  async #passBotCheck(config: AssistantConfig): Promise<void> {
    this.#botCheck ??= (async () => {
      const check = config.botCheck!;
      let slot = this.querySelector<HTMLElement>(':scope > [slot="challenge"]');
      if (!slot) {
        slot = document.createElement('div');
        slot.slot = 'challenge';
        this.append(slot);
      }
      this.#challenge.hidden = false;
      try {
        const token = await runBotCheck(check.provider, check.siteKey, slot, this.#dark() ? 'dark' : 'light');
        await this.#api!.visitor(token);
      } finally {
        this.#challenge.hidden = true;
        slot.replaceChildren();
      }
    })();
    try {
      await this.#botCheck;
    } finally {
      this.#botCheck = undefined;
    }
  }

  /** Saves the conversation in this browser's history (unless history is off). */
  #remember(): void {
    if (!this.#history || !this.#conversationId || this.#turns.length === 0) return;
    const messages: StoredMessage[] = this.#turns.flatMap((turn) => [
      { role: 'user' as const, content: turn.question },
      {
        role: 'assistant' as const,
        content: turn.answer,
        ...(turn.messageId ? { id: turn.messageId } : {}),
        sources: turn.sources.map(storedSource),
        ...(turn.vote ? { vote: turn.vote } : {}),
        ...(turn.interrupted ? { interrupted: true } : {}),
      },
    ]);
    this.#history.save({ id: this.#conversationId, title: titleOf(this.#turns[0]!.question), updatedAt: Date.now(), messages });
  }

  // --- feedback -------------------------------------------------------------------------------

  /** Sends a vote on an answer; resolves false (and says why) when it could not be sent. */
  async vote(turn: Turn, vote: Vote): Promise<string | undefined> {
    if (!turn.messageId || !this.#api) return 'This answer cannot be rated.';
    try {
      await this.#api.feedback({
        messageId: turn.messageId,
        rating: vote.rating,
        ...(vote.reasons && vote.reasons.length > 0 ? { reasons: vote.reasons as FeedbackReason[] } : {}),
        ...(vote.note ? { note: vote.note } : {}),
      });
      turn.vote = vote;
      this.#remember();
      return undefined;
    } catch (error) {
      return describeError(error).message;
    }
  }

  /** The live region: what a screen reader says when an answer is complete (never each chunk). */
  #announce(text: string): void {
    this.#live.textContent = '';
    // A change the screen reader notices even when the same words come twice.
    setTimeout(() => (this.#live.textContent = text.length > 2_000 ? `${text.slice(0, 2_000)}…` : text), 50);
  }

  /**
   * Scrolls the question to the top of the view, so that its answer reads from its beginning as it
   * comes (the view does not follow the end). Again once it is complete (`first` false) only if the
   * reader has not scrolled since.
   */
  #showQuestion(turn: Turn, first: boolean): void {
    const scroll = this.#scroll;
    if (!first && (this.#pinnedAt === undefined || Math.abs(scroll.scrollTop - this.#pinnedAt) > 2)) return;
    requestAnimationFrame(() => {
      const top = turn.asked.getBoundingClientRect().top - scroll.getBoundingClientRect().top + scroll.scrollTop - 8;
      scroll.scrollTo({ top: Math.max(0, top), behavior: 'auto' });
      this.#pinnedAt = scroll.scrollTop;
    });
  }
}

function storedSource(source: Source): StoredSource {
  return { title: source.title, ...(source.url ? { url: source.url } : {}), ...(source.anchor ? { anchor: source.anchor } : {}), ...(source.section ? { section: source.section } : {}) };
}

/** The footer's words, true of whoever writes the answers (the server's config says). */
function disclaimer(answerer: AssistantConfig['answerer'] | undefined): string {
  if (answerer === 'model') return 'Answers are written by AI from the documentation and may be wrong. Check the sources.';
  if (answerer === 'extractive') return 'Answers are passages quoted from the documentation and may miss your point. Check the sources.';
  return 'Answers come from the documentation. Check the sources.';
}

/** What the page is about: its main heading, else its title. */
function pageTopic(): string | undefined {
  const heading = document.querySelector('main h1, article h1, h1')?.textContent;
  const topic = (heading?.trim() ? heading : document.title).replace(/\s+/g, ' ').trim();
  return topic ? topic.slice(0, 200) : undefined;
}

/** The questions of an FAQ's Markdown: its "## Question?" headings. */
export function faqQuestions(markdown: string): string[] {
  return [...markdown.matchAll(/^##[ \t]+(.+?)[ \t#]*$/gm)].map((match) => match[1]!.trim()).filter((question) => question.endsWith('?') && question.length <= 200);
}

/** A source's link: its document's address, with the section's anchor when the server gives one. */
export function sourceHref(source: Pick<Source, 'url' | 'anchor'>): string | undefined {
  if (!source.url || !/^https?:\/\//i.test(source.url)) return undefined;
  if (!source.anchor || source.url.includes('#')) return source.url;
  return `${source.url}#${encodeURIComponent(source.anchor.replace(/^#/, ''))}`;
}

/** One answer: its Markdown (re-rendered as chunks arrive, at most once a frame), sources, feedback, and errors. */
class AnswerView {
  readonly element = h('div', { class: 'msg bot', role: 'article', 'aria-label': 'Answer' });
  readonly #body = h('div', { class: 'answer' });
  readonly #extra = h('div', {});
  #pending = '';
  #frame = 0;

  constructor(private readonly host: KbAssistant) {
    this.element.append(this.#body, this.#extra);
  }

  start(): void {
    this.#body.replaceChildren(h('p', { class: 'note typing' }, 'Thinking'));
    this.#extra.replaceChildren();
    this.element.setAttribute('aria-busy', 'true');
  }

  update(markdown: string): void {
    this.#pending = markdown;
    this.#frame ||= requestAnimationFrame(() => {
      this.#frame = 0;
      this.#render(this.#pending, true);
    });
  }

  #render(markdown: string, typing: boolean): void {
    const fragment = renderMarkdown(parseMarkdown(markdown), (pre) => this.#codeBlock(pre));
    this.#body.replaceChildren(fragment);
    if (typing) (this.#body.lastElementChild ?? this.#body).classList.add('typing');
  }

  #codeBlock(pre: HTMLPreElement): Node {
    const copy = h('button', { type: 'button', class: 'copy', 'aria-label': 'Copy code' }, icon(ICONS.copy, 14), 'Copy');
    copy.addEventListener('click', () => {
      const text = pre.textContent ?? '';
      const done = (label: string) => {
        copy.lastChild!.textContent = label;
        setTimeout(() => (copy.lastChild!.textContent = 'Copy'), 1_500);
      };
      // The clipboard needs a secure page (https or localhost).
      if (!navigator.clipboard) return done('Copy failed');
      navigator.clipboard.writeText(text).then(
        () => done('Copied'),
        () => done('Copy failed'),
      );
    });
    // Above the code, never over it: a long line scrolls under nothing.
    return h('div', { class: 'code' }, h('div', { class: 'bar' }, copy), pre);
  }

  text(): string {
    return this.#body.textContent?.replace(/\s+/g, ' ').replace(/Copy code|Copy/g, '').trim() ?? '';
  }

  finish(turn: Turn): void {
    cancelAnimationFrame(this.#frame);
    this.#frame = 0;
    this.element.removeAttribute('aria-busy');
    if (turn.answer) this.#render(turn.answer, false);
    else this.#body.replaceChildren();
    const parts: Node[] = [];
    if (turn.sources.length > 0) {
      parts.push(
        h(
          'section',
          { class: 'sources', 'aria-label': 'Sources' },
          h('h3', { 'aria-hidden': 'true' }, 'Sources'),
          h(
            'ol',
            {},
            ...turn.sources.map((source) => {
              const href = sourceHref(source);
              const section = source.section && source.section !== source.title ? h('span', { class: 'section' }, source.section) : null;
              return h('li', {}, href ? h('a', { href, target: '_blank', rel: 'noopener noreferrer' }, source.title) : source.title, section);
            }),
          ),
        ),
      );
    }
    if (turn.interrupted && turn.answer) parts.push(h('p', { class: 'note' }, 'This answer was cut short.'));
    if (turn.messageId && turn.answer) parts.push(this.#feedback(turn));
    this.#extra.replaceChildren(...parts);
  }

  note(text: string): void {
    this.#extra.prepend(h('p', { class: 'note' }, text));
  }

  /** An error in words, with Retry (disabled until a limit's wait is over, counting down). */
  fail(message: string, retry: () => void, retryAfter?: number): void {
    const button = h('button', { type: 'button', class: 'pill', onClick: () => retry() }, 'Retry');
    const wait = h('span', {});
    this.#extra.append(h('div', { class: 'error' }, h('span', {}, message), wait, button));
    let left = Math.ceil(retryAfter ?? 0);
    const tick = () => {
      wait.textContent = left > 0 ? `Try again in ${formatWait(left)}.` : '';
      button.disabled = left > 0;
      if (left > 0 && button.isConnected) {
        left -= 1;
        setTimeout(tick, 1_000);
      }
    };
    tick();
  }

  #feedback(turn: Turn): HTMLElement {
    const status = h('span', { class: 'thanks', role: 'status' });
    const up = h('button', { type: 'button', class: 'vote', 'aria-pressed': String(turn.vote?.rating === 'up') }, icon(ICONS.up, 16), 'Helpful');
    const down = h('button', { type: 'button', class: 'vote', 'aria-pressed': String(turn.vote?.rating === 'down') }, icon(ICONS.down, 16), 'Not helpful');
    const form = h('form', { class: 'reasons', hidden: true });
    const wrapper = h('div', {}, h('div', { class: 'feedback', role: 'group', 'aria-label': 'Was this answer helpful?' }, up, down, status), form);
    const show = (vote: Vote | undefined) => {
      up.setAttribute('aria-pressed', String(vote?.rating === 'up'));
      down.setAttribute('aria-pressed', String(vote?.rating === 'down'));
    };
    const send = async (vote: Vote, thanks: string) => {
      status.textContent = 'Sending…';
      const problem = await this.host.vote(turn, vote);
      status.textContent = problem ?? thanks;
      status.classList.toggle('error', problem !== undefined);
      show(turn.vote);
    };
    up.addEventListener('click', () => {
      form.hidden = true;
      void send({ rating: 'up' }, 'Thanks for your feedback.');
    });
    down.addEventListener('click', () => {
      // The vote counts at once; the reasons and the note, if given, follow it (the last vote wins).
      void send({ rating: 'down', ...(turn.vote?.rating === 'down' ? { reasons: turn.vote.reasons ?? [], note: turn.vote.note ?? '' } : {}) }, 'Thanks. What was wrong?');
      this.#reasons(form, turn, send);
      form.hidden = false;
      form.querySelector<HTMLInputElement>('input')?.focus();
    });
    return wrapper;
  }

  #reasons(form: HTMLFormElement, turn: Turn, send: (vote: Vote, thanks: string) => Promise<void>): void {
    const id = Math.random().toString(36).slice(2, 8);
    const chosen = new Set(turn.vote?.rating === 'down' ? (turn.vote.reasons ?? []) : []);
    const note = h('textarea', { id: `kb-note-${id}`, maxlength: MAX_NOTE_CHARS, rows: 3 });
    note.value = turn.vote?.rating === 'down' ? (turn.vote.note ?? '') : '';
    const count = h('span', { class: 'count', 'aria-live': 'polite' });
    const counted = () => (count.textContent = `${note.value.length} / ${MAX_NOTE_CHARS}`);
    note.addEventListener('input', counted);
    counted();
    form.replaceChildren(
      h(
        'fieldset',
        {},
        h('legend', {}, 'What was wrong with this answer?'),
        ...FEEDBACK_REASONS.map((reason) =>
          h('label', {}, h('input', { type: 'checkbox', name: 'reason', value: reason, checked: chosen.has(reason) }), REASON_LABELS[reason]),
        ),
      ),
      h('label', { class: 'field', for: `kb-note-${id}` }, 'Anything to add? (optional)', note),
      h(
        'div',
        { class: 'row' },
        count,
        h('button', { type: 'button', class: 'pill', onClick: () => (form.hidden = true) }, 'Cancel'),
        h('button', { type: 'submit', class: 'primary' }, 'Send'),
      ),
    );
    form.onsubmit = (event) => {
      event.preventDefault();
      const reasons = [...form.querySelectorAll<HTMLInputElement>('input[name=reason]:checked')].map((input) => input.value);
      form.hidden = true;
      void send({ rating: 'down', reasons, note: note.value.trim().slice(0, MAX_NOTE_CHARS) }, 'Thanks for your feedback.');
    };
  }
}

function safeLocalStorage(): Storage | undefined {
  try {
    return window.localStorage;
  } catch {
    return undefined;
  }
}

function isColor(value: string): boolean {
  // A colour and nothing else: no way to close the rule and add others.
  return !/[;{}<>]/.test(value) && CSS.supports('color', value);
}

/** Black or white, whichever reads better on the accent colour. */
function readableOn(color: string): string {
  const probe = document.createElement('canvas').getContext('2d');
  if (!probe) return '#fff';
  probe.fillStyle = '#000';
  probe.fillStyle = color;
  const hex = /^#([0-9a-f]{6})/i.exec(probe.fillStyle)?.[1];
  if (!hex) return '#fff';
  const [r, g, b] = [0, 2, 4].map((at) => {
    const channel = Number.parseInt(hex.slice(at, at + 2), 16) / 255;
    return channel <= 0.03928 ? channel / 12.92 : ((channel + 0.055) / 1.055) ** 2.4;
  });
  const luminance = 0.2126 * r! + 0.7152 * g! + 0.0722 * b!;
  // Contrast with white (1.05 / (L + 0.05)) against contrast with black ((L + 0.05) / 0.05).
  return 1.05 / (luminance + 0.05) >= (luminance + 0.05) / 0.05 ? '#fff' : '#111';
}
