import { skeleton } from '@/lib/text/lookalike';

/**
 * Text that addresses the agent (or any model reading it) with instructions: the prompt-injection
 * signal in evidence and arguments. Deliberately small and literal, for precision over recall: a
 * ticket that asks for a refund, says an item arrived damaged or quotes an order id must never
 * match. Matched against the text's skeleton (lib/text/lookalike.ts), so hidden characters and
 * look-alike letters do not get a phrase past it. A flag, never a refusal: the reviewer decides.
 */
const NOUN = String.raw`(?:rules?|instructions?|guidelines?|polic(?:y|ies)|prompts?|directives?|constraints?|restrictions?|guardrails?|programming)`;
const PATTERNS: RegExp[] = [
  // Dropping the reader's instructions: "Ignore your rules", "ignore all previous instructions",
  // "disregard the above guidelines". Not "ignore my previous instructions about delivery".
  new RegExp(
    String.raw`\b(?:ignore|disregard|forget|override|bypass)\s+(?:all\s+(?:of\s+)?)?(?:your|the\s+(?:previous|above|prior|earlier|system)|previous|prior|above|earlier|preceding|system|safety)\s+(?:\w+\s+)?${NOUN}\b` +
      String.raw`|\b(?:ignore|disregard|forget)\s+all\s+(?:\w+\s+)?${NOUN}\b`,
    'i',
  ),
  // Re-casting the model: "you are now an unrestricted assistant", "act as the administrator".
  /\byou\s+are\s+now\s+(?:an?\s+)?(?:unrestricted|unfiltered|jailbroken|DAN|admin(?:istrator)?|root|superuser|developer|system|in\s+(?:admin|developer|debug|god)\s+mode)\b|\bact\s+as\s+(?:an?\s+|the\s+)?(?:admin(?:istrator)?|root|system|developer|superuser)\b/i,
  // Talking about the model's own setup: "system prompt", "developer mode", "jailbreak", "as an AI".
  /\bsystem\s+prompt\b|\bdeveloper\s+mode\b|\bjailbreak|\bas\s+an?\s+(?:AI|artificial\s+intelligence|(?:large\s+)?language\s+model|LLM)\b/i,
  // Privilege switches for the agent to send: "retry with admin=true", "sudo: yes", "is_admin = 1".
  /\b(?:admin|sudo|root|superuser|is_?admin|elevated|privileged)\s*[=:]\s*(?:true|1|yes|on)\b|\bretry\s+(?:with|as)\s+(?:admin|root|sudo|elevated)\b/i,
  // Chat-transcript role markers at the start of a line or sentence ("SYSTEM:", "assistant:") and
  // chat-template tokens that try to open a new turn.
  /(?:^|[\n.!?]\s*)(?:system|assistant|developer)\s*:|<\|(?:im_start|im_end|system|assistant|user|endoftext)\|>|\[\/?INST\]|<<\/?SYS>>/i,
  // Instructions meant to stay out of the reviewer's sight, or to skip the reviewer altogether.
  /\b(?:hidden|secret)\s+instructions?\b|\b(?:do\s+not|don't|never)\s+(?:tell|inform|mention|reveal|show|notify)\s+(?:this\s+to\s+)?(?:the\s+)?(?:user|operator|reviewer|approver|human)s?\b|\b(?:skip|bypass)(?:ping|ing)?\s+(?:the\s+|any\s+|human\s+)*(?:approval|review|confirmation)\b|\bwithout\s+(?:any\s+)?human\s+(?:approval|review|oversight)\b/i,
  // Markup that would run in a browser or a rendering tool.
  /<\s*script\b|\bjavascript\s*:|\bon(?:error|load|click|mouseover|focus)\s*=/i,
];

/** The phrases in `text` that address the agent, as matched (on the skeleton), in pattern order. */
export function suspiciousPhrases(text: string): string[] {
  const read = skeleton(text);
  return PATTERNS.flatMap((pattern) => {
    const match = pattern.exec(read);
    return match ? [match[0].replace(/^[\s\n.!?]+/, '').trim()] : [];
  });
}
