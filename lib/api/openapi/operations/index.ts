import type { Operation } from '../operation';
import { agentOperations } from './agent';
import { proposalOperations } from './proposals';
import { readOperations } from './reads';

export const allOperations: readonly Operation[] = [...agentOperations, ...proposalOperations, ...readOperations];
