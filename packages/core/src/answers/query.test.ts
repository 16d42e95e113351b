import { describe, expect, it } from 'vitest';
import { feedbackTerms, historyKeyTerms, isFollowUp, standaloneQuery } from './query.ts';

const history = [
  { role: 'user' as const, content: 'How do I install Hugo on macOS?' },
  { role: 'assistant' as const, content: 'Use Homebrew: brew install hugo.' },
];

describe('follow-up queries', () => {
  it('reads short and leaning messages as follow-ups', () => {
    expect(isFollowUp('and on Windows?')).toBe(true);
    expect(isFollowUp('What about it?')).toBe(true);
    expect(isFollowUp('Windows')).toBe(true);
    expect(isFollowUp('How do I configure the main menu of a multilingual site with nested entries?')).toBe(false);
    expect(isFollowUp('how do I install it?')).toBe(true);
    expect(isFollowUp('also for sections?')).toBe(true);
  });

  it('reads a new question as itself, however it opens', () => {
    for (const message of [
      'how do I make hugo server show drafts?',
      'what is the difference between a leaf bundle and a branch bundle?',
      'I want a page that is not rendered to its own html file',
      'host on gitlab',
    ]) {
      expect(isFollowUp(message)).toBe(false);
      expect(standaloneQuery(message, history)).toBe(message);
    }
  });

  it('completes a follow-up with the key terms of the earlier questions, not the answers', () => {
    expect(standaloneQuery('and on Windows?', history)).toBe('and on Windows? install hugo macos');
    expect(historyKeyTerms('and on Windows with hugo?', history)).toEqual(['install', 'macos']);
    expect(standaloneQuery('How do I configure the main menu of a multilingual site with nested entries?', history)).toBe(
      'How do I configure the main menu of a multilingual site with nested entries?',
    );
    expect(standaloneQuery('and on Windows?', [])).toBe('and on Windows?');
  });

  it('takes feedback terms the best passages share and the others do not', () => {
    const feedback = ['Menus are defined in the menus configuration key; each menu entry has a weight.', 'Menu entries: weight orders the menu entries.'];
    const others = ['Templates render pages.', 'Pages have front matter.', 'Configure the server port.'];
    const terms = feedbackTerms('configure menus', feedback, [...feedback, ...others], 3);
    expect(terms).toContain('weight');
    expect(terms).toContain('entry');
    expect(terms.some((t) => t.startsWith('menu'))).toBe(false);
  });
});
