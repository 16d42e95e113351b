import { describe, expect, it } from 'vitest';
import { isOnTopic, topicTerms, topicWeights } from './relevance.ts';

const text = (headingPath: string, content: string) => ({ headingPath, content });

describe('topic relevance', () => {
  const passages = [
    text('Hugo Pipes > Introduction', 'Hugo Pipes processes assets with Hugo.'),
    text('Deploy > Render', 'Hugo builds the site for Hugo hosting.'),
    text('Menus', 'Hugo menus list links.'),
    text('Install', 'Install Hugo on Linux with Hugo packages.'),
  ];

  it('weighs a word every passage holds less than a rare one', () => {
    const terms = topicTerms('Hugo Pipes');
    const weights = topicWeights(terms, passages);
    expect(passages.map((p) => isOnTopic(p, terms, weights))).toEqual([true, false, false, false]);
    // Unweighted, "Hugo" alone would be half of the topic.
    expect(passages.map((p) => isOnTopic(p, terms))).toEqual([true, true, true, true]);
  });

  it('counts words no passage holds as much as the rarest one', () => {
    const terms = topicTerms('kubernetes helm menus');
    expect(passages.some((p) => isOnTopic(p, terms, topicWeights(terms, passages)))).toBe(false);
    const typo = topicTerms('configure menus properly');
    expect(isOnTopic(passages[2]!, typo, topicWeights(typo, passages))).toBe(false);
    const two = topicTerms('menus printers');
    expect(isOnTopic(passages[2]!, two, topicWeights(two, passages))).toBe(true);
    expect(topicTerms('the of and')).toEqual([]);
  });
});
