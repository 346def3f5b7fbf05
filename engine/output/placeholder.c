/* placeholder until the first source lands; removed then */
typedef int mbd_placeholder_output;
