#!/usr/bin/env node
// Paid-leave balance under references/accrual-scale.md. Prints JSON; exit 2 on bad input.
// Usage: node scripts/leave_balance.mjs --start YYYY-MM-DD --date YYYY-MM-DD [--taken N] [--carry N] [--unpaid-months N]
const RATE = 25 / 12; // days per completed month
const CARRY_MAX = 5;
const SENIORITY = [[15, 3], [10, 2], [5, 1]]; // [completed years, extra days]
const fail = (m) => { process.stderr.write(`leave_balance: ${m}\n`); process.exit(2); };

const opts = { taken: '0', carry: '0', 'unpaid-months': '0' };
const argv = process.argv.slice(2);
for (let i = 0; i < argv.length; i += 2) {
  const key = argv[i].slice(2);
  if (!argv[i].startsWith('--') || !['start', 'date', ...Object.keys(opts)].includes(key)) fail(`unknown option "${argv[i]}"`);
  if (argv[i + 1] === undefined) fail(`${argv[i]} needs a value`);
  opts[key] = argv[i + 1];
}
function date(name) {
  const m = (opts[name] ?? fail(`--${name} YYYY-MM-DD is required`)).match(/^(\d{4})-(\d{2})-(\d{2})$/);
  const d = m && new Date(Date.UTC(+m[1], +m[2] - 1, +m[3]));
  if (!d || d.getUTCMonth() !== +m[2] - 1 || d.getUTCDate() !== +m[3]) fail(`--${name} "${opts[name]}" is not a valid YYYY-MM-DD date`);
  return d;
}
function days(name) {
  const v = Number(opts[name].replace(',', '.'));
  if (!(v >= 0) || v * 2 !== Math.round(v * 2)) fail(`--${name} "${opts[name]}" must be days in halves (e.g. 3 or 2.5)`);
  return v;
}
const round = (x) => Math.round(x * 100) / 100;

const start = date('start'), asOf = date('date');
if (asOf < start) fail('--date is before --start');
const taken = days('taken'), unpaid = days('unpaid-months');
const year = asOf.getUTCFullYear();
// A month is earned once it is over, if the employee had joined by its 16th.
const months = (until) => {
  let n = 0;
  for (let m = 0; m < 12 && new Date(Date.UTC(year, m + 1, 0)) <= until; m++) if (start <= new Date(Date.UTC(year, m, 16))) n++;
  return Math.max(0, n - unpaid);
};
let years = year - start.getUTCFullYear();
if (asOf < new Date(Date.UTC(year, start.getUTCMonth(), start.getUTCDate()))) years--;
const seniority = (SENIORITY.find(([y]) => years >= y) || [0, 0])[1];
const carry = Math.min(days('carry'), CARRY_MAX);
const carryUsed = Math.min(carry, taken); // carried days are used first
const carryExpired = asOf > new Date(Date.UTC(year, 2, 31)) ? carry - carryUsed : 0;
const accrued = round(months(asOf) * RATE);
const balance = round(accrued + seniority + carry - carryExpired - taken);

const notes = [];
if (days('carry') > CARRY_MAX) notes.push(`carry-over capped at ${CARRY_MAX} days`);
if (carryExpired) notes.push(`${carryExpired} carried day(s) expired on 31 March ${year}`);
if (balance < 0) notes.push('negative balance: days taken in advance need HR approval');
console.log(JSON.stringify({
  leave_year: year, as_of: opts.date, months_accrued: months(asOf), accrued, seniority_years: years,
  seniority_days: seniority, carry_over: { counted: carry, used: carryUsed, expired: carryExpired }, taken, balance,
  bookable: Math.max(0, Math.floor(balance * 2) / 2),
  projected_year_end: round(months(new Date(Date.UTC(year, 11, 31))) * RATE + seniority - (taken - carryUsed)), notes,
}, null, 1));
