/** robots.txt, read with robots-parser (RFC 9309 rules, wildcards, crawl-delay). */
import * as robotsParserModule from 'robots-parser';

interface Robots {
  isAllowed(url: string, ua?: string): boolean | undefined;
  getCrawlDelay(ua?: string): number | undefined;
  getSitemaps(): string[];
}
// A CommonJS module whose types declare an ES default export (read differently by the package's
// module settings): at run time its function is the namespace's `default`.
type RobotsParser = (url: string, robotstxt: string) => Robots;
const robotsParser = ((robotsParserModule as unknown as { default?: RobotsParser }).default ?? robotsParserModule) as unknown as RobotsParser;

/** The user agent sources fetch with, and the token robots.txt groups are matched against. */
export const SOURCE_USER_AGENT_TOKEN = 'kb-service-sources';
export const SOURCE_USER_AGENT = `${SOURCE_USER_AGENT_TOKEN}/1 (+https://github.com/kb-service/kb#sources)`;

/** The longest crawl-delay honoured (seconds); a larger one is capped, so a sync still ends. */
export const MAX_CRAWL_DELAY_S = 60;

export interface RobotsRules {
  isAllowed(url: string): boolean;
  /** Seconds between requests the site asks for, if any. */
  crawlDelay: number | undefined;
  sitemaps: string[];
  /** Why every page is refused when it is not the rules' doing (robots.txt answered a server error). */
  refusal?: string;
}

export const ALLOW_ALL: RobotsRules = { isAllowed: () => true, crawlDelay: undefined, sitemaps: [] };
export const DISALLOW_ALL: RobotsRules = { isAllowed: () => false, crawlDelay: undefined, sitemaps: [] };

export function parseRobots(robotsUrl: string, text: string): RobotsRules {
  const robots = robotsParser(robotsUrl, text);
  const delay = robots.getCrawlDelay(SOURCE_USER_AGENT_TOKEN);
  return {
    // robots-parser answers undefined for a URL of another host: not ours to judge here.
    isAllowed: (url) => robots.isAllowed(url, SOURCE_USER_AGENT_TOKEN) !== false,
    crawlDelay: delay === undefined || !Number.isFinite(delay) || delay <= 0 ? undefined : Math.min(delay, MAX_CRAWL_DELAY_S),
    sitemaps: robots.getSitemaps(),
  };
}
