// The CLI's own error family. Commands throw these (or the SDK's typed errors); bin.ts alone turns
// them into exit codes ("Commands throw typed errors; only bin.ts maps them to exit codes").

/** Base of every error the CLI itself raises; `code` is what `--json` reports. */
export class CliError extends Error {
  override name = 'CliError';
  constructor(
    message: string,
    readonly code: string,
    options?: ErrorOptions,
  ) {
    super(message, options);
  }
}

/** Bad flags, a missing input file, a combination that cannot work: exit 2. */
export class UsageError extends CliError {
  override name = 'UsageError';
  constructor(message: string) {
    super(message, 'usage_error');
  }
}

/** No API key from --api-key, PDN_API_KEY or the config file: exit 3, like a 401. */
export class MissingApiKeyError extends CliError {
  override name = 'MissingApiKeyError';
  constructor() {
    super(
      'No API key. Pass --api-key, set PDN_API_KEY, or save one with `pdn config set api-key <key>`.',
      'missing_api_key',
    );
  }
}

/** An output file exists and --force was not given; the file is left untouched. */
export class OutputExistsError extends CliError {
  override name = 'OutputExistsError';
  constructor(readonly path: string) {
    super(`${path} already exists; pass --force to overwrite it`, 'output_exists');
  }
}

/** The config file exists but cannot be read as pdn's JSON config. */
export class ConfigFileError extends CliError {
  override name = 'ConfigFileError';
  constructor(message: string, options?: ErrorOptions) {
    super(message, 'config_error', options);
  }
}

/**
 * Some or all operations of a command failed. The command has already reported every item (human
 * or --json); bin.ts only picks the exit code from the failures and prints nothing more.
 */
export class OperationsFailedError extends CliError {
  override name = 'OperationsFailedError';
  constructor(
    readonly failures: readonly unknown[],
    readonly notProcessed: number,
  ) {
    super(`${failures.length} operation(s) failed, ${notProcessed} not processed`, 'operations_failed');
  }
}
