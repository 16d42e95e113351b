/** Test doubles of the services core talks to, for other packages' tests (`@kb/core/testing`). */
export { generateSpace, startFakeConfluence } from './wiki/fake-confluence.ts';
export type { FakeConfluence, FakeConfluenceOptions, FakePage, FakeSpace } from './wiki/fake-confluence.ts';
