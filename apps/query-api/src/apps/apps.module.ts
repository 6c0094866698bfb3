import { Module } from '@nestjs/common';
import { StoreModule } from '../store/store.module';
import { AppsController } from './apps.controller';
import { AppsService } from './apps.service';

@Module({ imports: [StoreModule], controllers: [AppsController], providers: [AppsService] })
export class AppsModule {}
