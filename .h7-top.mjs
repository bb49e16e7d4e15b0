import { chromium } from 'playwright-core';
const b = await chromium.launchPersistentContext('/tmp/h7prof'+Date.now(), {executablePath:'/usr/bin/chromium', headless:true, args:['--no-sandbox','--disable-gpu','--disable-background-networking','--disable-component-update','--disable-sync','--no-first-run','--disable-quic'], viewport:{width:1280,height:900}});
const p = await b.newPage();
await p.goto('file://'+process.argv[2]);
await p.screenshot({path:process.argv[3], clip:{x:0,y:Number(process.argv[4]??0),width:1280,height:1000}, fullPage:true});
await b.close();
