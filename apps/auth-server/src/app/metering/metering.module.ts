import { Global, Module } from '@nestjs/common';
import { TransportClientModule } from '@adintel/transport';
import { MeteringGateway } from './metering.gateway';

/** Global: the readiness checks and every feature talk to metering through the one gateway. */
@Global()
@Module({ imports: [TransportClientModule.register(['metering'])], providers: [MeteringGateway], exports: [MeteringGateway] })
export class MeteringModule {}
