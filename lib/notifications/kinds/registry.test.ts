import { describe, expect, it } from 'vitest';
import { channelKindEnum } from '@/db/schema';
import { CHANNEL_KIND_NAMES, CHANNEL_KINDS_IN_WORDS, channelKind, channelKindForms } from './registry';

describe('the channel kind registry', () => {
  it('has one module for every kind the database stores, in its order', () => {
    expect(CHANNEL_KIND_NAMES).toEqual(channelKindEnum.enumValues);
    expect(channelKindForms().map((form) => form.kind)).toEqual(channelKindEnum.enumValues);
    expect(CHANNEL_KINDS_IN_WORDS).toBe('webhook, slack or email');
  });

  it.each(channelKindEnum.enumValues)(
    '%s: a target shown in part is one the module shortens, and its placeholder is a target it takes',
    (kind) => {
      const plugin = channelKind(kind);
      expect(plugin.form.kind).toBe(kind);
      expect(plugin.displayTarget !== undefined).toBe(plugin.form.targetShownInPart);
      const example = plugin.form.placeholder.replace('…', 'T0/B0/abcd');
      expect(plugin.targetProblem(example)).toBeUndefined();
    },
  );

  it.each([
    ['webhook', { outbound: true, secret: true, members: false }],
    ['slack', { outbound: true, secret: false, members: false }],
    ['email', { outbound: false, secret: false, members: true }],
  ] as const)('%s: checked on save %j', (kind, expected) => {
    const plugin = channelKind(kind);
    expect({
      outbound: plugin.targetIsOutbound,
      secret: plugin.newSecret !== undefined,
      members: plugin.reachesMembers,
    }).toEqual(expected);
  });
});
