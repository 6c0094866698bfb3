// Runs in every e2e suite (jest setupFilesAfterEnv): when the suite ends, stacks still starting are stopped, so a
// beforeAll that timed out leaves no processes behind for jest to wait on (stack.ts, stopUnclaimedStacks).
import { stopUnclaimedStacks } from './stack';

afterAll(() => stopUnclaimedStacks(), 120_000);
