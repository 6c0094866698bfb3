/**
 * metering's operator commands (bundled as dist/apps/metering/cli.js; run through nx or `node` in the image):
 *   parked-events [--group G]                     events a service failed on every delivery, one JSON line each
 *   resend-parked <id>... | --all [--group G]     send them again, each to the service that parked it only
 * metering is the service that subscribes to events, so its image and config carry the commands for them.
 */
import { parseArgs } from 'node:util';
import { loadConfigOrExit } from '@adintel/config';
import { brokerUrl, ParkedEvents, STREAM_ID, type ResendOutcome } from '@adintel/transport';
import { appConfigSchema } from './config';

const say = (line: string) => process.stderr.write(`${line}\n`);

class UsageError extends Error {}

async function main(): Promise<number> {
  const { positionals, values } = parseArguments();
  const [command, ...ids] = positionals;
  if (command !== 'parked-events' && command !== 'resend-parked') {
    throw new UsageError(`unknown command ${JSON.stringify(command ?? '')}: use parked-events or resend-parked`);
  }
  if (command === 'resend-parked') {
    if (values.all ? ids.length > 0 : ids.length === 0) throw new UsageError('resend-parked needs the ids parked-events lists, or --all (not both)');
    const bad = ids.find((id) => !STREAM_ID.test(id));
    if (bad !== undefined) throw new UsageError(`${JSON.stringify(bad)} is not an entry id (like 1764000000000-0): take one from parked-events`);
  }

  const config = loadConfigOrExit(appConfigSchema, 'metering');
  const parked = ParkedEvents.connect(brokerUrl(config));
  try {
    if (command === 'parked-events') {
      const events = await parked.list(values.group);
      for (const event of events) process.stdout.write(`${JSON.stringify(event)}\n`);
      say(`${events.length} parked event${events.length === 1 ? '' : 's'}${values.group ? ` of ${values.group}` : ''}`);
      return 0;
    }
    const chosen = values.all ? (await parked.list(values.group)).map((event) => event.id) : ids;
    const outcomes = await parked.resend(chosen);
    for (const outcome of outcomes) say(describe(outcome));
    const resent = outcomes.filter((outcome) => 'resent' in outcome).length;
    say(`re-sent ${resent} of ${outcomes.length}`);
    return resent === outcomes.length ? 0 : 1;
  } finally {
    await parked.close();
  }
}

function parseArguments() {
  try {
    return parseArgs({ allowPositionals: true, options: { group: { type: 'string' }, all: { type: 'boolean', default: false } } });
  } catch (error) {
    throw new UsageError((error as Error).message); // an unknown option, or --group without a value
  }
}

function describe(outcome: ResendOutcome): string {
  if ('resent' in outcome) return `${outcome.id}: re-sent as ${outcome.resent}`;
  if ('missing' in outcome) return `${outcome.id}: not parked (already re-sent, trimmed, or never there)`;
  return `${outcome.id}: not a transport event, left parked`;
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    say(`error: ${error instanceof Error ? error.message : String(error)}`);
    process.exit(error instanceof UsageError ? 2 : 1);
  },
);
