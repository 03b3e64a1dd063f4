#include "mlperf/report/html/page.h"

#include <cmath>
#include <cstdlib>

#include <fmt/format.h>

namespace mlperf::html {

namespace {

// Light by default, dark when the reader's system asks for it; tables scroll sideways on a
// phone instead of widening the page.
constexpr std::string_view kStyle = R"CSS(
:root{color-scheme:light dark;--bg:#fff;--fg:#1d1d1f;--mute:#666;--line:#d6d6d6;--card:#f6f7f9;--ok:#1a7f37;--bad:#c62828;--link:#0b57d0}
@media (prefers-color-scheme:dark){:root{--bg:#121417;--fg:#e6e6e6;--mute:#9aa0a6;--line:#3a3f44;--card:#1b1f24;--ok:#4cc26a;--bad:#ff6b6b;--link:#8ab4f8}}
*{box-sizing:border-box}
body{margin:0 auto;max-width:1200px;padding:12px;background:var(--bg);color:var(--fg);font:14px/1.45 system-ui,-apple-system,"Segoe UI",sans-serif}
h1{font-size:1.4em;margin:.3em 0}h2{font-size:1.15em;margin:1.2em 0 .3em;overflow-wrap:anywhere}h3{font-size:1em;margin:.8em 0 .2em}
a{color:var(--link)}
.meta{color:var(--mute);overflow-wrap:anywhere}
section.dir{border-top:1px solid var(--line);padding-top:4px}
.grid{display:grid;grid-template-columns:repeat(auto-fit,minmax(320px,1fr));gap:12px}
figure{margin:0;background:var(--card);border:1px solid var(--line);border-radius:6px;padding:8px;min-width:0}
figcaption{font-weight:600;margin-bottom:4px}
.chart{position:relative;height:240px}
.scroll{overflow-x:auto}
table{border-collapse:collapse;font-variant-numeric:tabular-nums;margin:4px 0}
th,td{border-bottom:1px solid var(--line);padding:2px 8px;text-align:left;vertical-align:top}
td.n,th.n{text-align:right}
details summary{cursor:pointer;color:var(--mute)}
.ok{color:var(--ok);font-weight:600}.bad{color:var(--bad);font-weight:600}
@media (max-width:600px){body{padding:6px;font-size:13px}.grid{grid-template-columns:1fr}.chart{height:200px}}
)CSS";

// Runs before Chart.js: every script error and console.error lands in <html data-errors>.
constexpr std::string_view kErrorTrap = R"JS(
(function(){var errs=[];function rec(m){errs.push(String(m));document.documentElement.setAttribute('data-errors',errs.join('\n'));}
window.__recordError=rec;
window.addEventListener('error',function(e){rec(e.message||'error');});
window.addEventListener('unhandledrejection',function(e){rec('unhandled rejection: '+e.reason);});
var ce=console.error;console.error=function(){rec(Array.prototype.map.call(arguments,String).join(' '));return ce.apply(console,arguments);};})();
)JS";

// Turns the chart specifications (page.h) into Chart.js charts: those in view first, the rest
// a few at a time in the background, so a page of hundreds of charts paints at once.
constexpr std::string_view kCharts = R"JS(
(function(){
var S=JSON.parse(document.getElementById('chart-data').textContent);
var dark=window.matchMedia&&window.matchMedia('(prefers-color-scheme: dark)').matches;
Chart.defaults.color=dark?'#d0d0d0':'#333';Chart.defaults.borderColor=dark?'#3a3f44':'#e0e0e0';
Chart.defaults.animation=false;Chart.defaults.maintainAspectRatio=false;
var pal=['#4e79a7','#f28e2b','#59a14f','#e15759','#76b7b2','#edc948','#b07aa1','#ff9da7','#9c755f','#bab0ac'];
var codes={c:'#4e79a7',t:'#9aa0a6',d:'#e15759',p:'#59a14f'};
var lines=['#f28e2b','#b07aa1','#59a14f','#e15759'];
function axis(t){return t?{display:true,text:t}:{display:false};}
function barConfig(s){
  var n=s.l.length,ds=[{type:'bar',label:s.y||'value',data:s.v,order:2,
    backgroundColor:s.c?s.c.map(function(c){return codes[c]||pal[0];}):pal[0]}];
  (s.h||[]).forEach(function(h,i){var d=[];for(var j=0;j<n;j++)d.push(h[1]);
    ds.push({type:'line',label:h[0],data:d,borderColor:lines[i%lines.length],borderDash:[6,4],pointRadius:0,borderWidth:2,order:1});});
  var va=s.hz?'x':'y',ca=s.hz?'y':'x',sc={};sc[va]={beginAtZero:true,title:axis(s.y)};sc[ca]={ticks:{autoSkip:true}};
  return {type:'bar',data:{labels:s.l,datasets:ds},options:{indexAxis:s.hz?'y':'x',scales:sc,
    plugins:{legend:{display:ds.length>1,labels:{boxWidth:12}}}}};
}
function evalConfig(s){
  var ds=[],lo=Infinity,hi=-Infinity;
  s.r.forEach(function(r,i){var d=[];for(var j=0;j+1<r.p.length;j+=2){d.push({x:r.p[j],y:r.p[j+1]});lo=Math.min(lo,r.p[j]);hi=Math.max(hi,r.p[j]);}
    ds.push({label:r.n,data:d,borderColor:pal[i%pal.length],backgroundColor:pal[i%pal.length],pointRadius:1.5,borderWidth:1.5});});
  if(s.q!=null&&lo<=hi)ds.push({label:'quality target',data:[{x:lo,y:s.q},{x:hi,y:s.q}],borderColor:'#e15759',borderDash:[6,4],pointRadius:0,borderWidth:2});
  return {type:'line',data:{datasets:ds},options:{parsing:false,normalized:true,
    scales:{x:{type:'linear',title:axis(s.x)},y:{title:axis(s.y)}},
    plugins:{legend:{display:ds.length<=12,labels:{boxWidth:12}}}}};
}
var made=0,all=document.querySelectorAll('canvas[data-c]');
document.body.setAttribute('data-charts-expected',all.length);
function build(cv){
  if(cv.getAttribute('data-done'))return;cv.setAttribute('data-done','1');
  var s=S[+cv.getAttribute('data-c')];
  try{new Chart(cv,s.k==='eval'?evalConfig(s):barConfig(s));made++;document.body.setAttribute('data-charts',made);}
  catch(e){window.__recordError('chart '+cv.getAttribute('data-c')+': '+e);}
}
var io=('IntersectionObserver' in window)?new IntersectionObserver(function(es){es.forEach(function(e){if(e.isIntersecting){io.unobserve(e.target);build(e.target);}});},{rootMargin:'300px'}):null;
for(var i=0;i<all.length;i++){if(io)io.observe(all[i]);else build(all[i]);}
var next=0;
function background(){var t=performance.now();while(next<all.length&&performance.now()-t<12)build(all[next++]);if(next<all.length)setTimeout(background,16);}
requestAnimationFrame(function(){requestAnimationFrame(function(){
  document.body.setAttribute('data-first-paint-ms',Math.round(performance.now()));setTimeout(background,50);});});
document.querySelectorAll('details[data-eval]').forEach(function(d){d.addEventListener('toggle',function(){
  if(!d.open||d.getAttribute('data-filled'))return;d.setAttribute('data-filled','1');
  var s=S[+d.getAttribute('data-eval')],t=document.createElement('table'),h=t.insertRow();
  ['run',s.x,s.y].forEach(function(x){var th=document.createElement('th');th.textContent=x;h.appendChild(th);});
  s.r.forEach(function(r){for(var j=0;j+1<r.p.length;j+=2){var row=t.insertRow();
    [r.n,r.p[j],r.p[j+1]].forEach(function(v,k){var c=row.insertCell();c.textContent=v;if(k)c.className='n';});}});
  var w=document.createElement('div');w.className='scroll';w.appendChild(t);d.appendChild(w);});});
})();
)JS";

}  // namespace

std::string escape(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (char c : text) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      case '\'': out += "&#39;"; break;
      default: out += c;
    }
  }
  return out;
}

std::string script_json(const nlohmann::json& value) {
  std::string text = value.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  std::string out;
  out.reserve(text.size());
  for (char c : text) {
    if (c == '<') {
      out += "\\u003c";
    } else {
      out += c;
    }
  }
  return out;
}

nlohmann::json compact(double v) {
  if (!std::isfinite(v)) return nullptr;
  double rounded = std::strtod(fmt::format("{:.6g}", v).c_str(), nullptr);
  // Whole numbers (sample counts) print without ".0".
  if (std::abs(rounded) < 1e15 && rounded == std::floor(rounded)) return static_cast<long long>(rounded);
  return rounded;
}

Page::Page(std::string title) : title_(std::move(title)) {}

Page& Page::raw(std::string_view html) {
  body_ += html;
  return *this;
}

std::size_t Page::chart(const std::string& caption, nlohmann::json spec, std::string_view numbers_html) {
  const std::size_t index = charts_.size();
  const bool eval = spec.value("k", "") == "eval";
  // Horizontal bars get room for every label.
  std::size_t bars = spec.value("hz", false) && spec.contains("l") ? spec["l"].size() : 0;
  std::string height = bars > 10 ? fmt::format(" style=\"height:{}px\"", 20 * bars + 60) : "";
  charts_.push_back(std::move(spec));
  body_ += fmt::format("<figure><figcaption>{}</figcaption><div class=\"chart\"{}><canvas data-c=\"{}\" role=\"img\" "
                       "aria-label=\"{}\"></canvas></div>",
                       escape(caption), height, index, escape(caption));
  if (eval) {
    body_ += fmt::format("<details data-eval=\"{}\"><summary>numbers</summary></details>", index);
  } else {
    body_ += "<details><summary>numbers</summary><div class=\"scroll\">";
    body_ += numbers_html;
    body_ += "</div></details>";
  }
  body_ += "</figure>";
  return index;
}

std::string Page::str() const {
  std::string out;
  const std::string_view js = chart_js();
  out.reserve(body_.size() + js.size() + 8192);
  out += "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
         "<meta name=\"viewport\" content=\"width=device-width,initial-scale=1\">"
         "<meta name=\"color-scheme\" content=\"light dark\"><title>";
  out += escape(title_);
  out += "</title><style>";
  out += kStyle;
  out += "</style><script>";
  out += kErrorTrap;
  out += "</script></head><body>\n";
  out += body_;
  out += "\n<script>";
  out += js;
  out += "</script>\n<script type=\"application/json\" id=\"chart-data\">";
  out += script_json(charts_);
  out += "</script>\n<script>";
  out += kCharts;
  out += "</script></body></html>\n";
  return out;
}

}  // namespace mlperf::html
