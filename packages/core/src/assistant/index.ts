export { AssistantService, pageAllowed, pageRefused } from './assistant.ts';
export type { AssistantConfig } from './assistant.ts';
export { BotCheck } from './bot-check.ts';
export type { BotCheckSettings } from './bot-check.ts';
export { PublishableLimits, readableWait } from './limits.ts';
export { VisitorTokens } from './visitor-tokens.ts';
