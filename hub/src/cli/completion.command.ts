import { Argument, type Command } from 'commander';
import { outputFormats } from './output-format.js';

// `meerkat completion bash|zsh|fish`: a completion script made from the program's own commands, so it lists exactly
// the commands, resources (get's sub-commands and their aliases) and flags this version has. main.ts registers
// every command before this one runs.

interface Completions {
  /** Top-level command names and aliases. */
  commands: string[];
  /** Per top-level command: its sub-commands' names and aliases, and its own flags. */
  words: Map<string, string[]>;
  /** Per `command sub`: the sub-command's flags. */
  subWords: Map<string, string[]>;
}

const flagsOf = (command: Command) =>
  command.options.flatMap((option) =>
    [option.short, option.long].filter((f): f is string => f !== undefined),
  );
const namesOf = (command: Command) => [command.name(), ...command.aliases()];

function collect(program: Command): Completions {
  const visible = program.commands.filter((c) => c.name() !== 'help');
  const words = new Map<string, string[]>();
  const subWords = new Map<string, string[]>();
  for (const command of visible) {
    words.set(command.name(), [...command.commands.flatMap(namesOf), ...flagsOf(command), '--help']);
    for (const sub of command.commands)
      for (const name of namesOf(sub)) subWords.set(`${command.name()} ${name}`, [...flagsOf(sub), '--help']);
  }
  return { commands: visible.flatMap(namesOf), words, subWords };
}

const caseArms = (entries: Map<string, string[]>) =>
  [...entries].map(([key, list]) => `    "${key}") words="${list.join(' ')}" ;;`).join('\n');

function bashScript({ commands, words, subWords }: Completions): string {
  return `# meerkat completion for bash: source <(meerkat completion bash)
_meerkat() {
  local cur="\${COMP_WORDS[COMP_CWORD]}" words=""
  if [ "$COMP_CWORD" -eq 1 ]; then
    COMPREPLY=( $(compgen -W "${commands.join(' ')} --help --version" -- "$cur") )
    return
  fi
  case "\${COMP_WORDS[COMP_CWORD-1]}" in
    -o|--output)
      COMPREPLY=( $(compgen -W "${outputFormats.join(' ')} jsonpath= custom-columns=" -- "$cur") )
      return ;;
  esac
  local key="\${COMP_WORDS[1]}"
  if [ "$COMP_CWORD" -gt 2 ]; then
    case "\${COMP_WORDS[1]} \${COMP_WORDS[2]}" in
      ${[...subWords.keys()].map((k) => `"${k}"`).join('|')}) key="\${COMP_WORDS[1]} \${COMP_WORDS[2]}" ;;
    esac
  fi
  case "$key" in
${caseArms(words)}
${caseArms(subWords)}
  esac
  COMPREPLY=( $(compgen -W "$words" -- "$cur") )
}
complete -o default -F _meerkat meerkat
`;
}

/** zsh runs the bash function through its bash compatibility layer, as many CLIs' zsh completions do. */
const zshScript = (completions: Completions) => `#compdef meerkat
# meerkat completion for zsh: source <(meerkat completion zsh)
autoload -U +X bashcompinit && bashcompinit
${bashScript(completions)}`;

function fishScript({ commands, words, subWords }: Completions): string {
  const lines = [
    '# meerkat completion for fish: meerkat completion fish | source',
    'complete -c meerkat -f',
    `complete -c meerkat -n __fish_use_subcommand -a "${commands.join(' ')}"`,
  ];
  const fishFlag = (flag: string) => (flag.startsWith('--') ? `-l ${flag.slice(2)}` : `-s ${flag.slice(1)}`);
  const add = (condition: string, list: string[]) => {
    for (const word of list)
      lines.push(
        word.startsWith('-')
          ? `complete -c meerkat -n "${condition}" ${fishFlag(word)}`
          : `complete -c meerkat -n "${condition}" -a ${word}`,
      );
  };
  for (const [command, list] of words) add(`__fish_seen_subcommand_from ${command}`, list);
  for (const [key, list] of subWords) {
    const [command, sub] = key.split(' ');
    add(`__fish_seen_subcommand_from ${command}; and __fish_seen_subcommand_from ${sub}`, list);
  }
  return lines.join('\n') + '\n';
}

const shells = { bash: bashScript, zsh: zshScript, fish: fishScript };

export function registerCompletionCommand(program: Command): void {
  program
    .command('completion')
    .description('print a shell completion script: source <(meerkat completion bash)')
    .addArgument(new Argument('<shell>', 'the shell').choices(Object.keys(shells)))
    .action((shell: keyof typeof shells) => {
      process.stdout.write(shells[shell](collect(program)));
    });
}
