// PLACEHOLDER: replaced by the helper that owns `skillbench validate`.
import { Command } from 'commander';

export function register(program: Command): void {
  program.command('validate').description('(not built yet)').action(() => {
    throw new Error('validate is not built yet');
  });
}
