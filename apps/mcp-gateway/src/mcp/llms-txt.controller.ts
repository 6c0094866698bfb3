import { Controller, Get, Header, Inject } from '@nestjs/common';
import { APP_CONFIG } from '@adintel/config';
import type { AppConfig } from '../config';
import { llmsTxt } from './llms-txt';

/** /llms.txt at the public origin: public, like the OAuth metadata, so crawlers can read it without a token. */
@Controller()
export class LlmsTxtController {
  private readonly text: string;

  constructor(@Inject(APP_CONFIG) config: AppConfig) {
    this.text = llmsTxt(config.PUBLIC_BASE_URL);
  }

  @Get('llms.txt')
  @Header('Content-Type', 'text/plain; charset=utf-8')
  @Header('Cache-Control', 'public, max-age=3600')
  @Header('Access-Control-Allow-Origin', '*')
  get(): string {
    return this.text;
  }
}
