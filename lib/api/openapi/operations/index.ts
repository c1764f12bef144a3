import type { Operation } from '../operation';
import { adminOperations } from './admin';
import { agentOperations } from './agent';
import { definitionOperations } from './definitions';
import { grantOperations } from './grants';
import { passkeyOperations } from './passkeys';
import { proposalOperations } from './proposals';
import { protocolOperations } from './protocols';
import { readOperations } from './reads';

export const allOperations: readonly Operation[] = [
  ...agentOperations,
  ...proposalOperations,
  ...readOperations,
  ...grantOperations,
  ...adminOperations,
  ...definitionOperations,
  ...passkeyOperations,
  ...protocolOperations,
];
