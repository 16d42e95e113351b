import { setupServer, type SetupServer } from 'msw/node';

const LOOPBACK = new Set(['127.0.0.1', 'localhost', '[::1]', '::1']);

/**
 * msw for server tests: requests to the test's own server (loopback) pass through; any other
 * request without a handler fails the test.
 */
export function startMockServer(): SetupServer {
  const server = setupServer();
  server.listen({
    onUnhandledRequest(request, print) {
      if (LOOPBACK.has(new URL(request.url).hostname)) return;
      print.error();
    },
  });
  return server;
}
