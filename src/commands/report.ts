// PLACEHOLDER: replaced by the helper that owns `skillbench report`.
import { Command } from 'commander';

export function register(program: Command): void {
  program.command('report').description('(not built yet)').action(() => {
    throw new Error('report is not built yet');
  });
}
