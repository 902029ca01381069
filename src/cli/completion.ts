// ce completion bash|zsh|fish: a completion script for the shell, made from
// the commands and flags ce has, so it is never out of date with them.
// Commands complete after `ce`, a group's commands after the group (ce
// participant add), flags after a dash, and files otherwise.
import { Command, InvalidArgumentError } from 'commander';
import { terminal } from './terminal.js';

const SHELLS = ['bash', 'zsh', 'fish'] as const;

/** Every command as the words that name it (`handoffs`, `participant add`), with its long flags. */
function commandsOf(program: Command): { words: string[]; flags: string[] }[] {
  const flagsOf = (command: Command) =>
    [...command.options.map((option) => option.long).filter((long): long is string => !!long), '--help'].sort();
  return program.commands.flatMap((command) =>
    command.commands.length > 0
      ? command.commands.map((sub) => ({ words: [command.name(), sub.name()], flags: flagsOf(sub) }))
      : [{ words: [command.name()], flags: flagsOf(command) }],
  );
}

function bash(program: Command): string {
  const commands = commandsOf(program);
  const top = [...new Set(commands.map((c) => c.words[0]!))].join(' ');
  const groups = [...new Set(commands.filter((c) => c.words.length > 1).map((c) => c.words[0]!))];
  const cases = commands.map((c) => `    "${c.words.join(' ')}") flags="${c.flags.join(' ')}" ;;`).join('\n');
  const subs = groups
    .map(
      (g) =>
        `    ${g}) words="${commands
          .filter((c) => c.words[0] === g)
          .map((c) => c.words[1])
          .join(' ')}" ;;`,
    )
    .join('\n');
  return `# ce completion for bash: eval "$(ce completion bash)", or save it in ~/.local/share/bash-completion/completions/ce
_ce() {
  local cur="\${COMP_WORDS[COMP_CWORD]}" first="\${COMP_WORDS[1]}" words="" flags="" command
  if [ "$COMP_CWORD" -eq 1 ]; then
    COMPREPLY=($(compgen -W "${top}" -- "$cur")); return
  fi
  case "$first" in
${subs}
  esac
  if [ -n "$words" ] && [ "$COMP_CWORD" -eq 2 ]; then
    COMPREPLY=($(compgen -W "$words" -- "$cur")); return
  fi
  command="$first"; [ -n "$words" ] && command="$first \${COMP_WORDS[2]}"
  case "$command" in
${cases}
  esac
  if [[ "$cur" == -* ]]; then COMPREPLY=($(compgen -W "$flags" -- "$cur")); else COMPREPLY=($(compgen -f -- "$cur")); fi
}
complete -o filenames -F _ce ce
`;
}

/** zsh runs the bash script through its bash completion layer. */
const zsh = (program: Command): string =>
  `# ce completion for zsh: eval "$(ce completion zsh)"
autoload -U +X bashcompinit && bashcompinit
${bash(program).split('\n').slice(1).join('\n')}`;

function fish(program: Command): string {
  const commands = commandsOf(program);
  const top = [...new Set(commands.map((c) => c.words[0]!))];
  const lines = [
    '# ce completion for fish: ce completion fish > ~/.config/fish/completions/ce.fish',
    'complete -c ce -f',
    `complete -c ce -n __fish_use_subcommand -a '${top.join(' ')}'`,
  ];
  for (const c of commands) {
    if (c.words.length > 1) {
      lines.push(`complete -c ce -n '__fish_seen_subcommand_from ${c.words[0]}' -a '${c.words[1]}'`);
    }
    const seen = `__fish_seen_subcommand_from ${c.words.at(-1)}`;
    for (const flag of c.flags) lines.push(`complete -c ce -n '${seen}' -l ${flag.slice(2)}`);
    lines.push(`complete -c ce -n '${seen}' -F`);
  }
  return `${lines.join('\n')}\n`;
}

export function completionCommand(program: Command): void {
  program
    .command('completion')
    .description('print a completion script for your shell (bash, zsh or fish)')
    .argument('<shell>', SHELLS.join(', '))
    .addHelpText(
      'after',
      '\nExamples:\n  $ ce completion fish > ~/.config/fish/completions/ce.fish\n  $ eval "$(ce completion bash)"    # in ~/.bashrc',
    )
    .action((shell: string) => {
      const scripts = { bash, zsh, fish } as const;
      if (!(SHELLS as readonly string[]).includes(shell)) {
        throw new InvalidArgumentError(`no completion for ${JSON.stringify(shell)}: one of ${SHELLS.join(', ')}`);
      }
      terminal().out(scripts[shell as (typeof SHELLS)[number]](program));
    });
}
