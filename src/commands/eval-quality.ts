// PLACEHOLDER: replaced by the helper that owns `skillbench eval-quality`.
import { Command } from 'commander';

export function register(program: Command): void {
  program.command('eval-quality').description('(not built yet)').action(() => {
    throw new Error('eval-quality is not built yet');
  });
}
