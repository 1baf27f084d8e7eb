/**
 * The pause of a link: while closed, its readers wait before reading the next chunk (the upstream's connection
 * backs up instead of the gateway's memory); opening it lets every waiting reader go on.
 */
export class ReadGate {
  #closed: { readonly promise: Promise<void>; readonly open: () => void } | undefined;

  /** A promise to wait for while the gate is closed; undefined while it is open. */
  get wait(): Promise<void> | undefined {
    return this.#closed?.promise;
  }

  close(): void {
    if (this.#closed) return;
    let open!: () => void;
    const promise = new Promise<void>((resolve) => (open = resolve));
    this.#closed = { promise, open };
  }

  open(): void {
    const closed = this.#closed;
    this.#closed = undefined;
    closed?.open();
  }
}
