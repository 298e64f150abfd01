// The keys of the dictionaries being read, so that a repeated key is refused (ISO 32000-2 §7.3.7: readers
// disagree on which one wins). One list serves every dictionary open at once, each nested one's keys
// above those of the dictionary holding it, instead of a Set per dictionary: a Set for each dictionary
// the walk drops (a page's /Resources, /Font...) was a third of the JS heap a merge of 20 x 50 pages
// allocated (as the merge bench measured).

/** A dictionary's first keys are found by a scan; past this many, a Set keeps a big one linear. */
const MAX_SCANNED = 16;

export class OpenDictionaryKeys {
  /**
   * keys[0, count) are those of the open dictionaries. The list keeps its longest length (at most a
   * walk's token budget) instead of being cut, which makes V8 reallocate it at the next push.
   */
  private readonly keys: string[] = [];
  private count = 0;
  /** The keys of each open dictionary past MAX_SCANNED keys, by the mark it was opened at. */
  private readonly large = new Map<number, Set<string>>();

  /** Opens a dictionary, answering its mark: its keys go after it until `close(mark)`. */
  open(): number {
    return this.count;
  }

  /**
   * Adds `key` to the dictionary opened at `mark`, which must be the innermost one open; false, adding
   * nothing, when it already holds that key.
   */
  add(mark: number, key: string): boolean {
    const { keys, count } = this;
    if (count - mark < MAX_SCANNED) {
      for (let i = mark; i < count; i++) if (keys[i] === key) return false;
    } else {
      let set = this.large.get(mark);
      if (set === undefined) {
        set = new Set(keys.slice(mark, count));
        this.large.set(mark, set);
      }
      if (set.has(key)) return false;
      set.add(key);
    }
    keys[this.count++] = key;
    return true;
  }

  /** Closes the dictionary opened at `mark`, the innermost one open. */
  close(mark: number): void {
    this.count = mark;
    this.large.delete(mark);
  }
}
