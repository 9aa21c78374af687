import { createUsageStream } from './core/usage';
const WORDS = [' the',' model',' returns',' tokens',' as',' they',' are',' generated',',',' and',' a',' stream',' of',' server-sent',' events',' carries',' each',' delta','.',' Résumé',' naïve',' café',' 東京',' データ',' 🚀','\\n','\\n\\n',' \\"quoted\\"',' function','(x)',' {',' }',' =>',' 42',' usage'];
function lcg(seed:number){let s=seed>>>0;return()=>{s=(Math.imul(s,1664525)+1013904223)>>>0;return s/2**32;};}
const rand=lcg(1);
const head='{"id":"chatcmpl-BqZ7h3kLmN9pQrStUvWxYz012345","object":"chat.completion.chunk","created":1751824801,"model":"gpt-4o-2024-08-06","service_tier":"default","system_fingerprint":"fp_07871e2ad8","choices":';
const parts:string[]=[];let size=0,n=0;while(size<8e6){const f=`data: ${head}[{"index":0,"delta":{"content":"${WORDS[Math.floor(rand()*WORDS.length)]}"},"logprobs":null,"finish_reason":null}],"usage":null,"obfuscation":"${'abcdefgh'.slice(0,1+(n%8))}"}\n\n`;parts.push(f);size+=f.length;n++;}
parts.push(`data: ${head}[],"usage":{"prompt_tokens":1893,"completion_tokens":${n},"total_tokens":${1893+n}}}\n\ndata: [DONE]\n\n`);
const bytes=new TextEncoder().encode(parts.join(''));const ch:Uint8Array[]=[];for(let i=0;i<bytes.length;i+=16384)ch.push(bytes.subarray(i,i+16384));
const run=()=>{const s=createUsageStream('openai');for(const c of ch)s.push(c);return s.end();};
for(let i=0;i<5;i++)run();
const rates:number[]=[];for(let k=0;k<5;k++){const c0=process.cpuUsage();let r=0;const w=performance.now();while(performance.now()-w<500){run();r++;}const cu=process.cpuUsage(c0);rates.push(bytes.length*r/1e6/((cu.user+cu.system)/1e6));}
rates.sort((a,b)=>a-b);console.log('openai cpu MB/s best',rates[4]!.toFixed(0),'median',rates[2]!.toFixed(0));
