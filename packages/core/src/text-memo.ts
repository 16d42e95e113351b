/**
 * Results of a pure analysis of a text, by the text itself, the least recently used dropped
 * beyond `capacity`. The sections retrieval returns come back question after question, and
 * analysing them again is most of an answer's JavaScript; the key is the text, so a changed
 * section is a new entry and nothing needs invalidating.
 */
export class TextMemo<V> {
  private readonly entries = new Map<string, V>();

  constructor(
    private readonly analyse: (text: string) => V,
    private readonly capacity: number,
  ) {}

  get(text: string): V {
    let value = this.entries.get(text);
    if (value === undefined) value = this.analyse(text);
    else this.entries.delete(text);
    this.entries.set(text, value);
    if (this.entries.size > this.capacity) this.entries.delete(this.entries.keys().next().value!);
    return value;
  }

  get size(): number {
    return this.entries.size;
  }
}
