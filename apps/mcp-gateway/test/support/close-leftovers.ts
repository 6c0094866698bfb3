// Runs in every gateway suite (jest setupFilesAfterEnv): servers a timed-out start-up hook left open are closed when
// the suite ends, so jest has nothing of theirs to wait on (leftovers.ts).
import { closeLeftovers } from './leftovers';

afterAll(async () => {
  const closed = await closeLeftovers();
  if (closed > 0) console.warn(`closed ${closed} server(s) the suite left open (a start-up hook that timed out?)`);
}, 30_000);
