import 'reflect-metadata';
import { parseArgs } from 'node:util';
import { Module, type DynamicModule } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import pino from 'pino';
import { ConfigModule, loadConfigOrExit } from '@adintel/config';
import { createLogger, NestPinoLogger } from '@adintel/observability';
import { appConfigSchema, type AppConfig } from '../config';
import { MeteringGateway } from '../app/metering/metering.gateway';
import { MeteringModule } from '../app/metering/metering.module';
import { OwnersModule } from '../app/owners/owners.module';
import { OwnerInputError, OwnersService } from '../app/owners/owners.service';
import { AuthRedisModule } from '../app/redis/redis.module';

const USAGE = `Creates an owner account, or updates the password and plan of the owner with that email.
Usage: npx nx run auth-server:create-owner --email=you@example.com --password='at least 12 chars' [--plan=pro]
       (or pass the password in OWNER_PASSWORD instead of --password)
       --if-absent: leave an existing owner with that email as it is (created: false)`;

@Module({})
class CreateOwnerModule {
  static register(config: AppConfig): DynamicModule {
    return { module: CreateOwnerModule, imports: [ConfigModule.forRoot(config), AuthRedisModule, OwnersModule, MeteringModule] };
  }
}

function fail(message: string): never {
  process.stderr.write(`${message}\n\n${USAGE}\n`);
  process.exit(2);
}

async function main() {
  let values: { email?: string; password?: string; plan?: string; help?: boolean; 'if-absent'?: boolean };
  try {
    ({ values } = parseArgs({
      options: { email: { type: 'string' }, password: { type: 'string' }, plan: { type: 'string', default: 'pro' }, help: { type: 'boolean' }, 'if-absent': { type: 'boolean' } },
      strict: true,
    }));
  } catch (error) {
    fail((error as Error).message);
  }
  if (values.help) {
    process.stdout.write(`${USAGE}\n`);
    return;
  }
  const password = values.password ?? process.env['OWNER_PASSWORD'];
  if (!values.email) fail('--email is required');
  if (!password) fail('--password (or OWNER_PASSWORD) is required');

  const config = loadConfigOrExit(appConfigSchema, 'auth-server:create-owner');
  // Logs go to stderr: stdout carries only the result line.
  const logger = createLogger('auth-server:create-owner', 'warn', pino.destination(2));
  const app = await NestFactory.createApplicationContext(CreateOwnerModule.register(config), { logger: new NestPinoLogger(logger) });
  try {
    const owners = app.get(OwnersService);
    const input = { email: values.email, password, plan: values.plan ?? 'pro' };
    const { owner, created } = values['if-absent'] ? await owners.createIfAbsent(input) : await owners.createOrUpdate(input);
    let metering: 'updated' | 'unreachable' = 'updated';
    try {
      await app.get(MeteringGateway).upsertOwner(owner.owner_id, owner.plan);
    } catch (error) {
      // The account page tells metering at the owner's first sign-in.
      metering = 'unreachable';
      logger.warn(`metering did not record the owner yet: ${(error as Error).message}`);
    }
    process.stdout.write(`${JSON.stringify({ owner_id: owner.owner_id, email: owner.email, plan: owner.plan, created, metering })}\n`);
  } catch (error) {
    if (error instanceof OwnerInputError) fail(error.message);
    throw error;
  } finally {
    await app.close();
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`create-owner failed: ${(error as Error).message}\n`);
  process.exit(1);
});
