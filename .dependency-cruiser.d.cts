import type { IConfiguration } from 'dependency-cruiser';

declare const config: IConfiguration & Required<Pick<IConfiguration, 'forbidden' | 'options'>>;
export = config;
