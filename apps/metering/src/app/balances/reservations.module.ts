import { Module } from '@nestjs/common';
import { BalancesModule } from './balances.module';
import { ReservationSweeper } from './reservation-sweeper';
import { ReservationsController } from './reservations.controller';
import { ReservationsService } from './reservations.service';

@Module({
  imports: [BalancesModule],
  controllers: [ReservationsController],
  providers: [ReservationsService, ReservationSweeper],
  exports: [ReservationsService, ReservationSweeper],
})
export class ReservationsModule {}
