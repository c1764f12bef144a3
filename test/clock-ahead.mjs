// Preloaded into a CLI run (`node --import ./test/clock-ahead.mjs`): the process's clock reads
// CLOCK_AHEAD_MS later than the machine's, so a verifier's answer can be shown not to depend on when
// it runs (docs/evidence.md). Test use only.
const ahead = Number(process.env.CLOCK_AHEAD_MS ?? 0);
const RealDate = globalThis.Date;
class AheadDate extends RealDate {
  constructor(...args) {
    if (args.length === 0) super(RealDate.now() + ahead);
    else super(...args);
  }
  static now() {
    return RealDate.now() + ahead;
  }
}
globalThis.Date = AheadDate;
