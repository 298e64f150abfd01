// `pdn completion bash|zsh|fish`: prints the shell's completion script for this very
// command tree; installing it is one line in the shell's startup file (README, "Completion").
import { Argument, type Command, type Option } from 'commander';
import {
  type CompletionCommand,
  type CompletionOption,
  completionScript,
  SHELLS,
  type Shell,
} from '../completion.js';
import { CommandContext, type Io } from '../context.js';
import { examples } from '../help.js';

export function registerCompletion(program: Command, io: Io): void {
  program
    .command('completion')
    .summary('print the shell completion script')
    .description('Print a completion script for bash, zsh or fish; source it from your shell startup file.')
    .addArgument(new Argument('<shell>', 'bash | zsh | fish').choices(SHELLS))
    .addHelpText(
      'after',
      examples(
        "echo 'source <(pdn completion bash)' >> ~/.bashrc",
        "echo 'source <(pdn completion zsh)' >> ~/.zshrc",
        'pdn completion fish > ~/.config/fish/completions/pdn.fish',
      ),
    )
    .action((shell: Shell, _flags: object, command: Command) => {
      CommandContext.of(command, io).reporter.print(completionScript(shell, model(program)).trimEnd());
    });
}

/**
 * The command tree as completion sees it: each command's own flags and the root flags its --help
 * lists (program.ts, GLOBALS_USED); commander's `help` command adds nothing.
 */
function model(command: Command): CompletionCommand {
  const options = [...command.options, ...command.createHelp().visibleGlobalOptions(command)];
  return {
    name: command.name(),
    summary: command.summary() || command.description(),
    options: [...options.filter((option) => !option.hidden).map(optionModel), helpOption],
    subcommands: command.commands.map(model),
    values: command.registeredArguments.flatMap((argument) => argument.argChoices ?? []),
    takesFiles: command.registeredArguments.some((argument) => FILE_ARGUMENTS.has(argument.name())),
  };
}

/** The argument names under which commands take paths (compress <files...>, split <file>...). */
const FILE_ARGUMENTS = new Set(['file', 'files', 'images']);

const helpOption: CompletionOption = {
  flags: ['-h', '--help'],
  takesValue: false,
  choices: [],
  description: 'display help',
};

function optionModel(option: Option): CompletionOption {
  return {
    flags: [option.short, option.long].filter((flag): flag is string => flag !== undefined),
    takesValue: option.required || option.optional,
    choices: option.argChoices ?? [],
    description: option.description,
  };
}
