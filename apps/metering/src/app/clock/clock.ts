/** Where metering reads the time: injected so tests can cross a month boundary without waiting for one. */
export abstract class Clock {
  abstract now(): Date;
}

export class SystemClock extends Clock {
  now(): Date {
    return new Date();
  }
}
