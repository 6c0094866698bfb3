import { Module } from '@nestjs/common';
import { WebmastersController } from './webmasters.controller';
import { WebmastersService } from './webmasters.service';

@Module({ controllers: [WebmastersController], providers: [WebmastersService] })
export class WebmastersModule {}
