const WORDS=[' the',' model',' returns',' tokens',' as',' café',' 東京','\\n',' \\"q\\"'];
let seed=1;const rand=()=>{seed=(seed*1664525+1013904223)>>>0;return seed/2**32};
const parts:string[]=[];
for(let k=0;k<60000;k++){let t='';const w=1+Math.floor(rand()*5);for(let i=0;i<w;i++)t+=WORDS[Math.floor(rand()*WORDS.length)];parts.push(`event: content_block_delta\ndata: {"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"${t}"}}\n\n`);}
const bytes=new TextEncoder().encode(parts.join(''));
const dec=new TextDecoder();
const texts:string[]=[];for(let i=0;i<bytes.length;i+=16384)texts.push(dec.decode(bytes.subarray(i,i+16384)));
const total=texts.reduce((a,t)=>a+t.length,0);
function t(name:string, f:()=>number){let c=0;for(let i=0;i<3;i++)c+=f();const c0=process.cpuUsage();let r=0;const w=performance.now();while(performance.now()-w<1500){c+=f();r++;}const cu=process.cpuUsage(c0);console.log(name.padEnd(20),(total*r/1e6/((cu.user+cu.system)/1e6)).toFixed(0),'Mchar/s cpu',c>0?'':'-');}
t('decode',()=>{let n=0;for(let i=0;i<bytes.length;i+=16384)n+=dec.decode(bytes.subarray(i,i+16384)).length;return n;});
t('indexOf loop',()=>{let n=0;for(const s of texts){let i=0;while((i=s.indexOf('\n',i))!==-1){i++;n++;}}return n;});
t('split',()=>{let n=0;for(const s of texts){const a=s.split('\n');for(const l of a)n+=l.length;}return n;});
t('split+check',()=>{let n=0;for(const s of texts){const a=s.split('\n');for(const l of a){if(l.length===0)n++;else if(l.charCodeAt(0)===100&&l.startsWith('data: '))n+=l.slice(6).length;}}return n;});
t('dbl-nl indexOf',()=>{let n=0;for(const s of texts){let i=0;while((i=s.indexOf('\n\n',i))!==-1){i+=2;n++;}}return n;});
t('charCode loop',()=>{let n=0;for(const s of texts){for(let i=0;i<s.length;i++)if(s.charCodeAt(i)===10)n++;}return n;});
import { LineSplitter } from './core/usage/lines';
import { SseDecoder } from './core/usage/sse';
t('LineSplitter text',()=>{let n=0;const sp=new LineSplitter(1<<20,{line(_t:string,a:number,b:number){n+=b-a},overflow(){}});for(const s of texts)sp.pushText(s);sp.end();return n+1;});
t('LineSplitter+Sse',()=>{let n=0;const sse=new SseDecoder(1<<20,{frame(d:string){n+=d.length},overflow(){}});const sp=new LineSplitter(1<<20,sse);for(const s of texts)sp.pushText(s);sp.end();return n+1;});
t('startsWith pos',()=>{let n=0;for(const s of texts){let i=0,j;while((j=s.indexOf('\n',i))!==-1){if(s.startsWith('data',i))n++;i=j+1;}}return n;});
t('charCodeAt x4',()=>{let n=0;for(const s of texts){let i=0,j;while((j=s.indexOf('\n',i))!==-1){if(s.charCodeAt(i)===100&&s.charCodeAt(i+1)===97&&s.charCodeAt(i+2)===116&&s.charCodeAt(i+3)===97)n++;i=j+1;}}return n;});
t('slice',()=>{let n=0;for(const s of texts){let i=0,j;while((j=s.indexOf('\n',i))!==-1){n+=s.slice(i,j).length;i=j+1;}}return n;});
t('slice+charCodeAt',()=>{let n=0;for(const s of texts){let i=0,j;while((j=s.indexOf('\n',i))!==-1){const l=s.slice(i,j);n+=l.charCodeAt(l.length-1);i=j+1;}}return n;});
t('substring+charCodeAt',()=>{let n=0;for(const s of texts){let i=0,j;while((j=s.indexOf('\n',i))!==-1){const l=s.substring(i,j);n+=l.charCodeAt(l.length-1);i=j+1;}}return n;});
