/** The components project: each test starts from an empty document (Testing Library unmounts what the last one rendered). */
import { cleanup } from '@testing-library/react';
import { afterEach } from 'vitest';

afterEach(cleanup);
