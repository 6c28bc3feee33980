__kernel void broadcast_add__k0(__global const float *X, __global const float *r, __global const float *c, __global const float *s, __global float *Y, long M, long N)
{
	const int64_t ext_X_1 = 64;
	const int64_t ext_Y_1 = 64;
	for (int64_t c0 = (0 + (int64_t) get_group_id(0)); (c0 <= 1); c0 += 1 * (int64_t) get_num_groups(0)) {
		for (int64_t c1 = (0 + (int64_t) get_local_id(0)); (c1 <= ein_min64(3, ((-4 * c0) + 4))); c1 += 1 * (int64_t) get_local_size(0)) {
			for (int64_t c2 = 0; (c2 <= 63); c2 += 4) /* vector 4 */ {
				*(__global float4 *) &Y[(((4 * c0) + c1) * ext_Y_1 + c2)] = (((((*(__global const float4 *) &X[(((4 * c0) + c1) * ext_X_1 + c2)]) + (*(__global const float4 *) &r[c2])) + ((float4) (c[((4 * c0) + c1)]))) + ((float4) (s[0]))) * ((float4) (((float) 0.5))));
			}
		}
	}
}

