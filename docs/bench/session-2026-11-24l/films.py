import sys, numpy as np, glob, os
d=sys.argv[1]
for t in ['2','3','4']:
    f=lambda n: np.load(os.path.join(d,f'{n}_t{t}.npy')).astype(np.float64)
    try: h,hu,hv=f('h'),f('hu'),f('hv')
    except Exception as e: print('missing',t,e); continue
    n=h.shape[0]; dx=100.0/n
    wet=h>1e-6
    u=np.zeros_like(h); u[wet]=np.hypot(hu[wet],hv[wet])/h[wet]
    s=u+np.sqrt(9.81*np.maximum(h,0))
    j,i=np.indices(h.shape); r=np.hypot((i+0.5)*dx-50,(j+0.5)*dx-50)
    print(f't={t} n={n}: wet cells {wet.sum()}, max speed {s.max():.2f} at h={h.flat[s.argmax()]:.3e} r={r.flat[s.argmax()]:.2f} m; bulk (h>1cm) max speed {s[h>1e-2].max():.2f}')
    edges=[1e-6,1e-5,1e-4,1e-3,1e-2,1e-1,1e9]
    for a,b in zip(edges[:-1],edges[1:]):
        m=(h>a)&(h<=b)
        if m.any(): print(f'   h in ({a:.0e},{b:.0e}]: {m.sum():9d} cells, max |u| {u[m].max():7.2f}, >25 m/s: {(s[m]>25).sum():7d}, median |u| {np.median(u[m]):6.2f}')
    top=np.argsort(s.ravel())[-5:]
    for k in top: print(f'   top: s={s.flat[k]:.2f} h={h.flat[k]:.3e} u={u.flat[k]:.2f} cell ({k%n},{k//n}) r={r.flat[k]:.2f}')
