import { Module } from '@nestjs/common';

/** The API log of tokens in debug mode. */
@Module({})
export class ApiLogModule {}
