// Shell completion scripts (`pdn completion bash|zsh|fish`), rendered from a plain model
// of the command tree so a new command or flag completes without editing a script. Bash completes
// commands, subcommands, flags and flag choices, and leaves file names to the shell (`-o default`);
// zsh runs the same function through bashcompinit; fish gets native `complete` lines.

export interface CompletionOption {
  /** `-l`, `--level`. */
  flags: string[];
  takesValue: boolean;
  /** Values the flag accepts (`--level low|medium|high`), if it lists them. */
  choices: string[];
  description: string;
}

export interface CompletionCommand {
  name: string;
  summary: string;
  options: CompletionOption[];
  subcommands: CompletionCommand[];
  /** The values its argument takes, if it lists them (`pdn completion bash|zsh|fish`). */
  values: string[];
  /** Its arguments are file names. */
  takesFiles: boolean;
}

export type Shell = 'bash' | 'zsh' | 'fish';
export const SHELLS: readonly Shell[] = ['bash', 'zsh', 'fish'];

export function completionScript(shell: Shell, root: CompletionCommand): string {
  switch (shell) {
    case 'bash':
      return `# pdn completion for bash. Install: echo 'source <(pdn completion bash)' >> ~/.bashrc\n${bashFunction(root)}`;
    case 'zsh':
      return `# pdn completion for zsh. Install: echo 'source <(pdn completion zsh)' >> ~/.zshrc\nautoload -U +X compinit && compinit\nautoload -U +X bashcompinit && bashcompinit\n${bashFunction(root)}`;
    case 'fish':
      return fishScript(root);
  }
}

/** Every command with its path from the root: `''`, `compress`, `config set`. */
function withPaths(root: CompletionCommand): [string, CompletionCommand][] {
  const walk = (command: CompletionCommand, path: string): [string, CompletionCommand][] => [
    [path, command],
    ...command.subcommands.flatMap((sub) => walk(sub, path === '' ? sub.name : `${path} ${sub.name}`)),
  ];
  return walk(root, '');
}

function bashFunction(root: CompletionCommand): string {
  const commands = withPaths(root);
  const flags = (options: CompletionOption[]) => options.flatMap((option) => option.flags);
  const allOptions = commands.flatMap(([, command]) => command.options);
  const valueFlags = [...new Set(flags(allOptions.filter((option) => option.takesValue)))];
  // A flag's choices where its command takes it: `-l` is --level for compress, --language for ocr.
  const choiceCases = commands.flatMap(([path, command]) =>
    command.options
      .filter((option) => option.choices.length > 0)
      .map(
        (option) =>
          `    ${option.flags.map((flag) => quote(`${path}:${flag}`)).join('|')}) COMPREPLY=($(compgen -W ${quote(option.choices.join(' '))} -- "$cur")); return ;;`,
      ),
  );
  const wordCases = commands.map(([path, command]) => {
    const subs = [...command.subcommands.map((sub) => sub.name), ...command.values].join(' ');
    return `    ${quote(path)}) subs=${quote(subs)} flag_words=${quote(flags(command.options).join(' '))} ;;`;
  });
  return `_pdn() {
  local cur="\${COMP_WORDS[COMP_CWORD]}" prev="\${COMP_WORDS[COMP_CWORD-1]}" cmd_path="" subs="" flag_words="" next i
  # The command path typed so far, skipping flags and the values they take.
  for ((i = 1; i < COMP_CWORD; i++)); do
    case "\${COMP_WORDS[i]}" in
      ${valueFlags.join('|')}) ((i++)) ;;
      -*) ;;
      *)
        next="\${cmd_path:+$cmd_path }\${COMP_WORDS[i]}"
        case "$next" in ${commands
          .filter(([path]) => path !== '')
          .map(([path]) => quote(path))
          .join('|')}) cmd_path="$next" ;; esac ;;
    esac
  done
  case "$cmd_path:$prev" in
${choiceCases.join('\n')}
  esac
  case "$prev" in ${valueFlags.join('|')}) return ;; esac
  case "$cmd_path" in
${wordCases.join('\n')}
  esac
  # Flags after a dash; subcommands where the path has them; otherwise file names (-o default).
  case "$cur" in
    -*) COMPREPLY=($(compgen -W "$flag_words" -- "$cur")) ;;
    *) [[ -n "$subs" ]] && COMPREPLY=($(compgen -W "$subs" -- "$cur")) ;;
  esac
}
complete -o default -F _pdn pdn
`;
}

function fishScript(root: CompletionCommand): string {
  const lines = [
    '# pdn completion for fish. Install: pdn completion fish > ~/.config/fish/completions/pdn.fish',
  ];
  const topNames = root.subcommands.map((command) => command.name).join(' ');
  lines.push('complete -c pdn -f');
  // The root's own flags before a command; each command lists the root flags it uses itself.
  const beforeCommand = `-n "not __fish_seen_subcommand_from ${topNames}"`;
  for (const option of root.options) lines.push(`complete -c pdn ${beforeCommand} ${fishOption(option)}`);
  for (const command of root.subcommands) {
    lines.push(`complete -c pdn ${beforeCommand} -a ${command.name} -d ${quote(command.summary)}`);
    const when = `-n "__fish_seen_subcommand_from ${command.name}"`;
    if (command.takesFiles) lines.push(`complete -c pdn ${when} -F`);
    if (command.values.length > 0)
      lines.push(`complete -c pdn ${when} -a ${quote(command.values.join(' '))}`);
    for (const option of command.options) lines.push(`complete -c pdn ${when} ${fishOption(option)}`);
    const subNames = command.subcommands.map((sub) => sub.name).join(' ');
    const commandFlags = new Set(command.options.flatMap((option) => option.flags));
    for (const sub of command.subcommands) {
      lines.push(
        `complete -c pdn ${when} -n "not __fish_seen_subcommand_from ${subNames}" -a ${sub.name} -d ${quote(sub.summary)}`,
      );
      // A subcommand's own flags (`pdn jobs list --status`), once it is typed.
      const subWhen = `-n "__fish_seen_subcommand_from ${command.name}; and __fish_seen_subcommand_from ${sub.name}"`;
      for (const option of sub.options.filter((o) => !o.flags.some((flag) => commandFlags.has(flag)))) {
        lines.push(`complete -c pdn ${subWhen} ${fishOption(option)}`);
      }
    }
  }
  return `${lines.join('\n')}\n`;
}

function fishOption(option: CompletionOption): string {
  const parts = option.flags.map((flag) =>
    flag.startsWith('--') ? `-l ${flag.slice(2)}` : `-s ${flag.slice(1)}`,
  );
  // -x: a value from the list only, no file names; -r: any value, file names offered.
  if (option.choices.length > 0) parts.push(`-x -a ${quote(option.choices.join(' '))}`);
  else if (option.takesValue) parts.push('-r');
  parts.push(`-d ${quote(option.description)}`);
  return parts.join(' ');
}

/** Single-quoted for sh and fish. */
function quote(text: string): string {
  return `'${text.replace(/'/g, `'\\''`)}'`;
}
