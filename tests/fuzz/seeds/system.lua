local s = mbd.system { q = {"x", "y"}, mass = {1, 1}, force = {0, -9.8} }
s:holonomic { s.q.x^2 + s.q.y^2 - 1 }
s:initial { q = {1, 0}, qd = {0, 0} }
print(s:simulate { t_end = 0.2, stabilization = { alpha = 5, beta = 5 } })
print(mbd.stability { S = {{1, 0}, {0, 1}}, T = {{2, 0}, {0, 2}} })
