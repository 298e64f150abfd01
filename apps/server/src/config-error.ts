/** A configuration value that cannot be used; the message names the variable and what it accepts. */
export class ConfigError extends Error {
  override name = 'ConfigError';
}
