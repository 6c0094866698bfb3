import { Module } from '@nestjs/common';
import { OwnersRepository } from './owners.repository';
import { OwnersService } from './owners.service';
import { LoginThrottle } from './login-throttle';

@Module({ providers: [OwnersRepository, OwnersService, LoginThrottle], exports: [OwnersService] })
export class OwnersModule {}
