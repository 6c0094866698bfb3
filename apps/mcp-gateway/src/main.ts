import 'reflect-metadata';
import { Logger } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { AppModule } from './app/app.module';

async function bootstrap(): Promise<void> {
  const app = await NestFactory.create(AppModule);
  app.enableShutdownHooks();
  const port = Number(process.env['PORT'] ?? 3002);
  await app.listen(port);
  Logger.log(`mcp-gateway listening on http://localhost:${port}`, 'Bootstrap');
}

void bootstrap();
