import { skeleton } from '@/lib/text/lookalike';
import { step } from '@/lib/text/scan-steps';

/**
 * Text that addresses the agent (or any model reading it) with instructions: the prompt-injection
 * signal in evidence and arguments. Deliberately small and literal, for precision over recall: a
 * ticket that asks for a refund, says an item arrived damaged or quotes an order id must never
 * match. Matched against the text's skeleton (lib/text/lookalike.ts), so hidden characters and
 * look-alike letters do not get a phrase past it. A flag, never a refusal: the reviewer decides.
 */
const NOUN =
  String.raw`(?:rules?|instructions?|guidelines?|polic(?:y|ies)|prompts?|directives?|constraints?|restrictions?` +
  String.raw`|guardrails?|programming)`;

/** The first match of a pattern in the text: where it starts, and the phrase as matched. */
type Found = { index: number; phrase: string };
type Finder = (text: string) => Found | undefined;

const first =
  (pattern: RegExp): Finder =>
  (text) => {
    const match = pattern.exec(text);
    return match ? { index: match.index, phrase: match[0] } : undefined;
  };

/** The earliest match of several finders, as one alternation of them would find it. */
const earliest =
  (...finders: Finder[]): Finder =>
  (text) =>
    finders
      .map((find) => find(text))
      .reduce<Found | undefined>(
        (best, found) => (found && (!best || found.index < best.index) ? found : best),
        undefined,
      );

const ROLE_WORD = /(?:system|assistant|developer)\s*:/gi;
const WHITESPACE = /\s/;

/**
 * Whether `index` starts the text, a line or a sentence: only whitespace back to a line feed or to
 * a ".", "!" or "?". The walk back stops at the first other character, so over all candidates it
 * reads each character at most once.
 */
function startsSentence(text: string, index: number): boolean {
  let at = index;
  while (at > 0 && WHITESPACE.test(text[at - 1]!)) {
    step();
    at -= 1;
    if (text[at] === '\n') return true;
  }
  return at === 0 ? index === 0 : '.!?'.includes(text[at - 1]!);
}

/**
 * Chat-transcript role markers ("SYSTEM:", "assistant:") at the start of the text, a line or a
 * sentence. Not one pattern with the separator in it: `(?:^|[\n.!?]\s*)system` retries `\s*` from
 * every line feed of a run, quadratic in the run (issue 21).
 */
const roleMarker: Finder = (text) => {
  for (const match of text.matchAll(ROLE_WORD)) {
    step();
    if (startsSentence(text, match.index)) return { index: match.index, phrase: match[0] };
  }
  return undefined;
};

/**
 * Every finder is linear in its input: literal words joined by whitespace runs, and no quantified
 * part that can match what the part next to it matches (scanners.test.ts feeds each one 64 KiB
 * of its worst inputs).
 */
export const PHRASE_FINDERS: readonly { name: string; find: Finder }[] = [
  {
    // Dropping the reader's instructions: "Ignore your rules", "ignore all previous instructions",
    // "disregard the above guidelines". Not "ignore my previous instructions about delivery".
    name: 'dropping instructions',
    find: first(
      new RegExp(
        String.raw`\b(?:ignore|disregard|forget|override|bypass)\s+(?:all\s+(?:of\s+)?)?` +
          String.raw`(?:your|the\s+(?:previous|above|prior|earlier|system)|previous|prior|above|earlier|preceding` +
          String.raw`|system|safety)\s+(?:\w+\s+)?${NOUN}\b` +
          String.raw`|\b(?:ignore|disregard|forget)\s+all\s+(?:\w+\s+)?${NOUN}\b`,
        'i',
      ),
    ),
  },
  {
    // Re-casting the model: "you are now an unrestricted assistant", "act as the administrator".
    name: 're-casting the model',
    find: first(
      new RegExp(
        String.raw`\byou\s+are\s+now\s+(?:an?\s+)?(?:unrestricted|unfiltered|jailbroken|DAN|admin(?:istrator)?|root` +
          String.raw`|superuser|developer|system|in\s+(?:admin|developer|debug|god)\s+mode)\b` +
          String.raw`|\bact\s+as\s+(?:an?\s+|the\s+)?(?:admin(?:istrator)?|root|system|developer|superuser)\b`,
        'i',
      ),
    ),
  },
  {
    // Talking about the model's own setup: "system prompt", "developer mode", "jailbreak", "as an AI".
    name: "the model's setup",
    find: first(
      new RegExp(
        String.raw`\bsystem\s+prompt\b|\bdeveloper\s+mode\b|\bjailbreak` +
          String.raw`|\bas\s+an?\s+(?:AI|artificial\s+intelligence|(?:large\s+)?language\s+model|LLM)\b`,
        'i',
      ),
    ),
  },
  {
    // Privilege switches for the agent to send: "retry with admin=true", "sudo: yes", "is_admin = 1".
    name: 'privilege switches',
    find: first(
      new RegExp(
        String.raw`\b(?:admin|sudo|root|superuser|is_?admin|elevated|privileged)\s*[=:]\s*(?:true|1|yes|on)\b` +
          String.raw`|\bretry\s+(?:with|as)\s+(?:admin|root|sudo|elevated)\b`,
        'i',
      ),
    ),
  },
  {
    // Chat-transcript role markers at the start of a line or sentence ("SYSTEM:", "assistant:") and
    // chat-template tokens that try to open a new turn.
    name: 'role markers',
    find: earliest(
      roleMarker,
      first(/<\|(?:im_start|im_end|system|assistant|user|endoftext)\|>|\[\/?INST\]|<<\/?SYS>>/i),
    ),
  },
  {
    // Instructions meant to stay out of the reviewer's sight, or to skip the reviewer altogether.
    name: 'hiding from the reviewer',
    find: first(
      new RegExp(
        String.raw`\b(?:hidden|secret)\s+instructions?\b` +
          String.raw`|\b(?:do\s+not|don't|never)\s+(?:tell|inform|mention|reveal|show|notify)\s+(?:this\s+to\s+)?` +
          String.raw`(?:the\s+)?(?:user|operator|reviewer|approver|human)s?\b` +
          String.raw`|\b(?:skip|bypass)(?:ping|ing)?\s+(?:the\s+|any\s+|human\s+)*(?:approval|review|confirmation)\b` +
          String.raw`|\bwithout\s+(?:any\s+)?human\s+(?:approval|review|oversight)\b`,
        'i',
      ),
    ),
  },
  {
    // Markup that would run in a browser or a rendering tool.
    name: 'markup',
    find: first(/<\s*script\b|\bjavascript\s*:|\bon(?:error|load|click|mouseover|focus)\s*=/i),
  },
];

/** The phrases in `text` that address the agent, as matched (on the skeleton), in pattern order. */
export function suspiciousPhrases(text: string): string[] {
  const read = skeleton(text);
  return PHRASE_FINDERS.flatMap(({ find }) => {
    const found = find(read);
    return found ? [found.phrase.trim()] : [];
  });
}
