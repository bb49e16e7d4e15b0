import { chromium } from 'playwright-core';
const b = await chromium.launchPersistentContext('/tmp/h7prof'+Date.now(), {executablePath:'/usr/bin/chromium', headless:true, args:['--no-sandbox','--disable-gpu','--disable-background-networking','--disable-component-update','--disable-sync','--no-first-run','--disable-quic'], viewport:{width:1280,height:900}});
const p = await b.newPage();
await p.goto('file:///tmp/h7real/real.html');
console.log(JSON.stringify(await p.$$eval('.charts', cs => cs.map(c => [c.getBoundingClientRect().width, [...c.children].map(f => [f.tagName, f.getBoundingClientRect().width, f.querySelector('svg')?.getAttribute('width')])])))); 
await b.close();
